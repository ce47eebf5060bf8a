"""PosRules must give exactly the POS of the model's attribute_ruler; the phrases pipeline (PosRules, one-thread BLAS)
must give the same parse as the stock model."""
import pytest
import spacy
from spacy.pipeline import AttributeRuler
from spacy.tokens import Doc

from picforge.pos_rules import PosRules, UnsupportedPattern, replace_attribute_ruler
from pipeline.stages.clean import iter_clean_pages
from picforge.spacy_models import default_spacy_model
from pipeline.stages.phrases import load_spacy
from pipeline.stages.sentences import page_sentences

PATTERNS = [
    {"patterns": [[{"TAG": "NN"}]], "attrs": {"POS": "NOUN"}},
    {"patterns": [[{"TAG": "NN", "LOWER": "nothing"}]], "attrs": {"POS": "PRON"}},
    {"patterns": [[{"TAG": "DT"}]], "attrs": {"POS": "DET"}},
    {"patterns": [[{"TAG": {"IN": ["DT", "WDT"]}, "DEP": {"NOT_IN": ["det", ""]}}]], "attrs": {"POS": "PRON"}},
    {"patterns": [[{"TAG": "VBZ"}]], "attrs": {"POS": "AUX", "MORPH": "Number=Sing"}},
    {"patterns": [[{"DEP": "expl"}, {"LOWER": {"IN": ["is", "was"]}}]], "attrs": {"POS": "VERB"}, "index": 1},
    {"patterns": [[{"IS_SPACE": True}]], "attrs": {"POS": "SPACE", "TAG": "_SP"}},
    {"patterns": [[{"LOWER": "there"}]], "attrs": {"LEMMA": "there"}},
]


def _doc(vocab):
    words = ["There", "is", "nothing", "that", "this", "cat", " ", "knows"]
    return Doc(vocab, words=words, spaces=[True] * 7 + [False],
               tags=["EX", "VBZ", "NN", "WDT", "DT", "NN", "_SP", "VBZ"],
               deps=["expl", "ROOT", "attr", "nsubj", "det", "nsubj", "dep", "relcl"],
               heads=[1, 1, 1, 7, 5, 7, 5, 2])


def test_later_patterns_win_and_index_targets_the_right_token():
    vocab = spacy.blank("en").vocab
    ruler = AttributeRuler(vocab)
    ruler.add_patterns(PATTERNS)
    expected, ours = ruler(_doc(vocab)), PosRules(PATTERNS)(_doc(vocab))
    assert [t.pos_ for t in ours] == [t.pos_ for t in expected]
    assert [t.pos_ for t in ours] == ["", "VERB", "PRON", "PRON", "DET", "NOUN", "SPACE", "AUX"]


def test_unsupported_pattern_keeps_the_attribute_ruler():
    nlp = spacy.blank("en")
    nlp.add_pipe("attribute_ruler").add_patterns([{"patterns": [[{"TEXT": {"REGEX": "^a"}}]], "attrs": {"POS": "X"}}])
    with pytest.raises(UnsupportedPattern):
        PosRules(nlp.get_pipe("attribute_ruler").patterns)
    assert replace_attribute_ruler(nlp) is False
    assert nlp.pipe_names == ["attribute_ruler"]


def test_same_parse_pos_and_noun_chunks_as_the_full_model_on_the_real_sample(enwiki_sample):
    texts = [s["text"] for page in iter_clean_pages(str(enwiki_sample)) for s in page_sentences(page)]
    full = spacy.load(default_spacy_model())
    ours = load_spacy()
    assert "picforge_pos_rules" in ours.pipe_names and "attribute_ruler" not in ours.pipe_names
    n_tokens = 0
    for expected, doc in zip(full.pipe(texts), ours.pipe(texts)):
        assert [t.pos_ for t in doc] == [t.pos_ for t in expected], doc.text
        assert [(t.tag_, t.dep_, t.head.i) for t in doc] == [(t.tag_, t.dep_, t.head.i) for t in expected], doc.text
        assert [c.text for c in doc.noun_chunks] == [c.text for c in expected.noun_chunks], doc.text
        n_tokens += len(doc)
    assert len(texts) > 700 and n_tokens > 15000
