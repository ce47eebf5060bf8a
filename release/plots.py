"""PNG histograms for the dataset card: length distributions per config and the mining scores of used triplets."""
from picforge.release_writer import plot_histograms


def plot_lengths(config, lengths, path):
    """One histogram per length measure of a config (the output of stats.describe)."""
    plot_histograms(lengths, f"{config}: length distributions", path)


def plot_scores(scores, path):
    """Histograms of the semantic and domain similarity scores of the triplets behind the release."""
    plot_histograms({"semantic score (sentence cosine)": [s for s, _ in scores],
                 "domain score (category cosine)": [d for _, d in scores]},
                "mining scores of the released triplets", path)
