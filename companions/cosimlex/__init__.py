"""CoSimLex: graded word similarity in context, built from SimLex-999 pairs and Wikipedia contexts."""

# Stages written by the CLI steps after `candidates` (survey and rating round-trips), replaced whole per step.
SELECTION = "cosimlex-selection"
FORMS = "cosimlex-rating-forms"
RATINGS = "cosimlex-ratings"
FINAL = "cosimlex-final"
EXPORTS = "cosimlex-exports"
