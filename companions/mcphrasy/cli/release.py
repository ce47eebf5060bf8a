"""`picforge mcphrasy release`: the Hugging Face-format phrase-clustering dataset with its card."""
from companions.mcphrasy.release import DEFAULT_KS, DEFAULT_LICENSE, write_release
from picforge.encoders import BUNDLED_MODEL
from picforge.rundir import RunDir
from picforge.paths import add_output


def register(verbs):
    parser = verbs.add_parser("release", help="write the dataset, its card (Table 1) and the baseline scores")
    parser.add_argument("--run", required=True, metavar="RUN_DIR", help="run directory holding mcphrasy-clusters")
    add_output(parser, "--out", kind="release", required=True, help="release folder to write (replaced atomically)")
    parser.add_argument("--encoder", default=BUNDLED_MODEL, help=f"baseline encoder (default {BUNDLED_MODEL})")
    parser.add_argument("--license", default=DEFAULT_LICENSE, help=f"licence id for the card (default {DEFAULT_LICENSE}: what the "
                                                                   "Wikipedia text allows)")
    parser.set_defaults(func=run)


def run(args):
    manifest = write_release(RunDir(args.run), args.out, args.encoder, DEFAULT_KS, args.license)
    table = manifest["stats"]["table1"]["with_singletons"]
    print(f"{manifest['records']} groups in {args.out}; {table['clusters_per_group']} clusters per group; "
          f"baseline V at gold k: {manifest['stats']['baseline']['gold']['v_measure']}")
    return 0


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return f"picforge publish {args.out} --to TARGET, and picforge mcphrasy evaluate --release {args.out}"
