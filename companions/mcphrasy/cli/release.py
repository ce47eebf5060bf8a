"""`picforge mcphrasy release`: the Hugging Face-format phrase-clustering dataset with its card."""
from companions.mcphrasy.release import LICENSE, write_release
from picforge.encoders import BUNDLED_MODEL
from picforge.options import add_device_option, check_device
from picforge.release_writer import add_release_options


def register(verbs):
    parser = verbs.add_parser("release", help="write the dataset, its card (Table 1) and the baseline scores")
    add_release_options(parser, reads="mcphrasy-clusters",
                        default_license=f"{LICENSE}: what the Wikipedia text allows")
    parser.add_argument("--encoder", default=BUNDLED_MODEL, help=f"baseline encoder (default {BUNDLED_MODEL})")
    add_device_option(parser, "the baseline encoder")
    parser.set_defaults(func=run)


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
    return f"picforge publish --release {args.out} --to TARGET, and picforge mcphrasy evaluate --release {args.out}"
