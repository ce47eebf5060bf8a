"""The stages CoSimLex writes (the candidate search's two, then the survey and rating round trips, each replaced
whole per step), by name: read by its declarations, its verbs and its release without importing either."""
CONTEXTS = "cosimlex-contexts"
CANDIDATES = "cosimlex-candidates"
SELECTION = "cosimlex-selection"
FORMS = "cosimlex-rating-forms"
RATINGS = "cosimlex-ratings"
FINAL = "cosimlex-final"
EXPORTS = "cosimlex-exports"
