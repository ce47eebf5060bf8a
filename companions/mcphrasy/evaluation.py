"""McPhraSy's evaluation, the hooks of the core's `picforge mcphrasy evaluate`: a predictions file, or the §5.3.1
baselines side by side, scored on a release (V-measure, ARI, AMI)."""
import dataclasses

from companions.mcphrasy.baselines import METRICS, ROUNDS
from companions.mcphrasy.settings import MAX_CONTEXTS
from picforge.encoders import BUNDLED_MODEL, DeviceOptions
from picforge.options import non_negative_int, positive_int
from picforge.stages import option


@dataclasses.dataclass(frozen=True)
class EvaluateOptions(DeviceOptions):
    """The baselines' encoders and word vectors, the contexts per phrase and the permutation test's rounds and seed."""

    encoder: str = option(BUNDLED_MODEL, "baseline sentence encoder", output=False, metavar="MODEL")
    vectors: str | None = option(None, "word vectors (word2vec / FastText text) for the averaged-word-vector baseline "
                                       "(default: the encoder's static word-piece embeddings)", output=False)
    max_contexts: int = option(MAX_CONTEXTS, "m, contexts per phrase for the contextual baselines", output=False,
                               type=positive_int)
    rounds: int = option(ROUNDS, "permutation-test rounds", output=False, type=positive_int)
    seed: int = option(0, "permutation-test seed", output=False, type=non_negative_int)


def score(inputs, options):
    """The predictions' scores when `inputs` names a predictions file, else every baseline side by side (the
    contextual ones when `inputs["run"]` holds the released phrases' contexts)."""
    from companions.mcphrasy.release import DEFAULT_KS, compare_baselines, read_release, score_predictions

    records = read_release(inputs["release"])
    if inputs["predictions"]:
        return {"predictions": inputs["predictions"], "scores": score_predictions(records, inputs["predictions"])}
    return compare_baselines(records, options.encoder, options.vectors, inputs["run"], options.max_contexts,
                             DEFAULT_KS, options.rounds, options.seed, options.device_spec())


def report(results):
    """The lines printed: the predictions' scores, or a plain table per k of each method's V / ARI / AMI, * where
    the best beats the next best (p < 0.05)."""
    if "predictions" in results:
        scores = results["scores"]
        return [f"{scores['groups']} groups: V {scores['v_measure']:.4f}  ARI {scores['ari']:.4f}  "
                f"AMI {scores['ami']:.4f}"]
    lines = [f"{results['groups']} groups; * = better than the next best, {results['test']}"]
    for k, by_metric in results["best"].items():
        lines.append(f"k={k}")
        for method, by_k in results["scores"].items():
            marks = ["*" if by_metric.get(m, {}).get("best") == method and by_metric[m]["significant"] else " "
                     for m in METRICS]
            cells = [f"{by_k[k][m]:.4f}{mark}" for m, mark in zip(METRICS, marks)]
            lines.append(f"  {method:<16} V {cells[0]}  ARI {cells[1]}  AMI {cells[2]}")
    return lines
