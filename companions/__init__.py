"""Companion datasets built with picforge's core: STS-B-Context, CoSimLex and McPhraSy."""
