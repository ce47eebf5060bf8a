"""CoSimLex: graded word similarity in context, built from SimLex-999 pairs and Wikipedia contexts."""
