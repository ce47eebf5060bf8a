"""`picforge build --run RUN_DIR --out RELEASE_DIR`: the four PiC tasks from a mined and annotated run."""
import os
import sys

from picforge.errors import InputError
from picforge.paths import refuse_overlap
from picforge.options import add_run_option, non_negative_int
from picforge.release_writer import add_license_options
from picforge import verbs


def add_options(parser):
    """The options of `picforge release build`."""
    add_run_option(parser, "the mined and annotated stages (local, gs:// or s3://)")
    parser.add_argument("--seed", type=non_negative_int, default=42, help="seed of passages, PSD queries, balancing, splits")
    add_license_options(parser, "what the redistributed Wikipedia revisions allow: cc-by-sa-3.0 when all predate "
                                "June 2023, else cc-by-sa-4.0")
    parser.add_argument("--force", action="store_true", help="rebuild, replacing whatever --out holds")


def run(args):
    from release.build import build_release
    from release.inputs import load_run, stage_fingerprints
    from picforge.release_writer import intact_release, read_manifest, size_warnings
    from picforge.release_writer import SPLITS
    from picforge.rundir import RunDir
    from release.provenance import rehearsal_note, run_agreement, run_description, run_left_out, run_provenance
    from release.write import release_fingerprint, write_release
    refuse_overlap(args.out, {"run": args.run})
    wanted = release_fingerprint(stage_fingerprints(args.run), args.seed, args.license, args.license_override)
    existing = read_manifest(args.out)
    if existing and existing.get("fingerprint") == wanted and not args.force and intact_release(args.out):
        print("\n".join([f"{args.out}: up to date (same run stages, seed and licence); --force rebuilds it",
                         *size_warnings(existing)]))
        return 0
    if os.path.exists(args.out) and os.listdir(args.out) and not args.force:
        held = ("a release built from other inputs, seed or licence, or changed since its build" if existing
                else "files that are not a picforge release")
        raise InputError(f"{args.out}: holds {held}; pass --force to replace it or choose another --out")
    inputs = load_run(args.run)
    release = build_release(inputs.triplets, args.seed)
    release.provenance = run_provenance(args.run)
    release.facts = run_description(args.run, release.sources)
    release.left_out = run_left_out(args.run)
    release.agreement = tuple(run_agreement(args.run))
    release.rehearsal = rehearsal_note(RunDir(args.run).read_manifest("final_annotations") or {})
    manifest = write_release(release, args.out, seed=args.seed, stage_fingerprints=inputs.fingerprints,
                             license_id=args.license, license_override=args.license_override)
    for config, key, reason in release.rejected:
        print(f"rejected {config} {key}: {reason}", file=sys.stderr)
    for config, counts in manifest["counts"].items():
        skipped = "; ".join(f"{reason}: {n}" for reason, n in release.skipped[config].items())
        print(f"{config}: " + ", ".join(f"{split} {counts.get(split, 0)}" for split in SPLITS)
              + (f" (left out: {skipped})" if skipped else ""))
    for config, splits in manifest["omitted_splits"].items():
        print(f"{config}: not written: {', '.join(splits)} (no example; see the card)")
    for reason, ids in release.left_out.items():
        print(f"annotations left out: {len(ids)} {reason} (listed in the card)")
    if release.rehearsal:
        print(f"{args.out}: {release.rehearsal}", file=sys.stderr)
    print("\n".join([f"wrote {args.out} ({len(release.rejected)} records rejected, license {manifest['license']})",
                      *size_warnings(manifest)]))
    return 0


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return verbs.Command("release publish", (("--release", args.out), ("--to", "TARGET")), note="a dry run; --live uploads",
                         then=verbs.Command("release evaluate", (("--release", args.out),)))


VERB = verbs.register(verbs.Verb(
    "release", "build", None, run, add_options,
    description="Build PS, PR-pass, PR-page and PSD (JSON Lines + Parquet, dataset card, statistics, plots) "
                "from the clean, sentences, select and final_annotations stages of a run directory.",
    writes=verbs.Writes("release", "release directory to write (local path)"),
    next_step=next_step))
