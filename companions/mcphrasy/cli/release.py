"""`picforge mcphrasy release`: the Hugging Face-format phrase-clustering dataset with its card."""
from companions.mcphrasy.release import LICENSE, write_release
from picforge.encoders import BUNDLED_MODEL
from picforge.options import add_device_option, check_device
from picforge.release_writer import add_release_options
from picforge import verbs


def add_options(parser):
    """The options of `picforge mcphrasy release`."""
    add_release_options(parser, reads="mcphrasy-clusters",
                        default_license=f"{LICENSE}: what the Wikipedia text allows")
    parser.add_argument("--encoder", default=BUNDLED_MODEL, metavar="MODEL",
                        help=f"baseline sentence encoder (default {BUNDLED_MODEL})")
    add_device_option(parser, "the baseline encoder")


def run(args):
    check_device(args.device)
    manifest = write_release(args.run, args.out, license_id=args.license,
                             license_override=args.license_override, force=args.force, model_name=args.encoder,
                             device=args.device)
    table = manifest["stats"]["table1"]["with_singletons"]
    print(f"{manifest['records']} groups in {args.out}; {table['clusters_per_group']} clusters per group; "
          f"baseline V at gold k: {manifest['stats']['baseline']['gold']['v_measure']}")
    return 0


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return verbs.Command("release publish", (("--release", args.out), ("--to", "TARGET")),
                         then=verbs.Command("mcphrasy evaluate", (("--release", args.out),)))


VERB = verbs.register(verbs.Verb(
    "mcphrasy", "release", None, run, add_options,
    help="write the dataset, its card (Table 1) and the baseline scores",
    next_step=next_step))
