"""The stages CoSimLex writes after `candidates` (survey and rating round trips, each replaced whole per step), by
name: read by its declaration, its verbs and its release without importing either."""
SELECTION = "cosimlex-selection"
FORMS = "cosimlex-rating-forms"
RATINGS = "cosimlex-ratings"
FINAL = "cosimlex-final"
EXPORTS = "cosimlex-exports"
