"""The PEARL distributions plot says which distribution each panel shows and which corpus it counts."""
from companions.pearl import release
from picforge import release_writer


def test_distribution_plot_titles_name_the_distribution_and_the_corpus(monkeypatch, tmp_path):
    rows = [{"phrase": "the river bank", "lexical_type": "NP", "entity_type": "OTHER", "count": 3, "label": "NP-OTHER",
             "augmentations": [], "hard_negatives": []},
            {"phrase": "in paris", "lexical_type": "PP", "entity_type": "GPE", "count": 2, "label": "PP-GPE",
             "augmentations": [], "hard_negatives": []}]
    stats = release.release_statistics({"train": rows, "validation": [], "test": []})
    figures = []
    monkeypatch.setattr(release_writer, "save_png", lambda figure, path: figures.append(figure))
    release.plot_distributions(stats, str(tmp_path / "d.png"), "of run 'pearl103'")
    (figure,) = figures
    assert figure.get_suptitle() == "PEARL phrase corpus of run 'pearl103': 2 phrases"
    lexical, entity = figure.axes
    assert lexical.get_title() == "lexical types: this corpus vs the PEARL paper"
    assert entity.get_title().startswith("entity types of this corpus (without OTHER, 50.0% of phrases)")
