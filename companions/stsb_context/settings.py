"""STS-B-Context's stage names and evaluation setups, in a module without Beam (for --help)."""
GENERATIONS = "generations"
DATASET = "dataset"
SETUPS = ("full", "ngram-forward", "ngram-single", "bm25")
SOURCES = (DATASET, GENERATIONS)
# The setups the paper gives a GloVe row (static vectors: a forward pass per n-gram equals the single pass).
GLOVE_SETUPS = ("full", "ngram-single")
COMPARISON = "eval-comparison"
