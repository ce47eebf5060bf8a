"""The groupings a verb's transform leaves in Beam's memory on the embedded runner (not through picforge.shuffle)."""
import apache_beam as beam
from apache_beam.portability import common_urns

from picforge.options import pipeline_options


def in_memory_groupings(transform, combiners=()):
    """Names of the GroupByKey steps of `transform` on the embedded runner other than picforge.shuffle's grouping of
    file names, and other than those inside the named `combiners` (they group a bounded accumulator per key)."""
    pipeline = beam.Pipeline(options=pipeline_options([]))
    _ = pipeline | beam.Create([]) | "verb" >> transform
    transforms = pipeline.to_runner_api().components.transforms.values()
    return sorted(t.unique_name for t in transforms
                  if t.spec.urn == common_urns.primitives.GROUP_BY_KEY.urn
                  and not t.unique_name.endswith("/files by partition")
                  and not any(f"/{combiner}/" in t.unique_name for combiner in combiners))
