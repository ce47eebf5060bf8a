"""PNG histograms for the dataset card: length distributions per config and the mining scores of used triplets."""
from matplotlib.figure import Figure


def _histograms(panels, title, path):
    figure = Figure(figsize=(4 * len(panels), 3.2), layout="constrained")
    figure.suptitle(title)
    for ax, (name, values) in zip(figure.subplots(1, len(panels), squeeze=False)[0], panels.items()):
        ax.hist(values, bins=min(30, max(5, len(set(values)))), color="#4c72b0", edgecolor="white")
        ax.set_xlabel(name)
        ax.set_ylabel("count")
    figure.savefig(path, format="png", dpi=80, metadata={"Software": None})


def plot_lengths(config, lengths, path):
    """One histogram per length measure of a config (the output of stats.describe)."""
    _histograms(lengths, f"{config}: length distributions", path)


def plot_scores(scores, path):
    """Histograms of the semantic and domain similarity scores of the triplets behind the release."""
    _histograms({"semantic score (sentence cosine)": [s for s, _ in scores],
                 "domain score (category cosine)": [d for _, d in scores]},
                "mining scores of the released triplets", path)
