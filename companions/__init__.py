"""Companion datasets built with picforge's core, one folder each: STS-B-Context, CoSimLex, McPhraSy and PEARL."""
