"""STS-B-Context's stage names and evaluation setups, in a module without Beam (for --help)."""
GENERATIONS = "generations"
DATASET = "dataset"
SETUPS = ("full", "ngram-forward", "ngram-single", "bm25")
SOURCES = (DATASET, GENERATIONS)
