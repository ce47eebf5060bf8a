"""`picforge release publish --release RELEASE_DIR --to DEST`: upload a built release (dry run unless --live)."""
from picforge.options import add_release_input, url_of
from picforge.paths import add_output
from picforge import verbs

# Where a release can go: the object stores and Hub publish speaks to, Beam's other FileSystems, or a local folder.
PUBLISH_TARGET = url_of("--to", ("s3", "gs", "hf", "azfs", "hdfs"), local=True)


def add_options(parser):
    """The options of `picforge release publish`."""
    add_release_input(parser, "release directory written by `picforge build` or a companion's `release` verb")
    add_output(parser, "--to", kind="release", required=True, dest="dest", type=PUBLISH_TARGET,
               help="s3://bucket/prefix, gs://bucket/prefix, hf://org/name or a local folder")
    parser.add_argument("--live", action="store_true", help="really upload (default: print the plan only)")
    parser.add_argument("--private", action="store_true", help="create the Hugging Face repository as private")
    parser.add_argument("--force", action="store_true",
                        help="replace a local --to folder even if it holds something else than a published release")
    parser.add_argument("--allow-rehearsal", action="store_true",
                        help="publish a release built from rehearsed answers (`annotate mturk rehearse`) to the Hub, "
                             "S3 or GCS anyway; its card says it is a rehearsal on its first line")


def run(args):
    from picforge.release_writer import read_manifest
    from release.publish import describe_plan, plan_upload, publish
    print("\n".join(describe_plan(plan_upload(args.release, args.dest, force=args.force,
                                              allow_rehearsal=args.allow_rehearsal), args.dest)))
    rehearsal = (read_manifest(args.release) or {}).get("rehearsal")
    if rehearsal:
        print(f"a rehearsal build, published as one (its card's first line says so): {rehearsal}")
    if not args.live:
        print("dry run: nothing uploaded; pass --live to upload")
        return 0
    uploads = publish(args.release, args.dest, private=args.private, force=args.force,
                      allow_rehearsal=args.allow_rehearsal)
    print(f"uploaded {len(uploads)} files to {args.dest}")
    return 0


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    if args.live:
        return verbs.Command("release evaluate", (("--release", args.release),))
    return verbs.Command("release publish", (("--release", args.release), ("--to", args.dest), ("--live", None)),
                         note="uploads what the plan lists")


VERB = verbs.register(verbs.Verb(
    "release", "publish", None, run, add_options,
    description="Check every file against MANIFEST.json, then upload to s3://bucket/prefix (boto3), "
                "hf://org/name (huggingface_hub, one commit) or gs:// and other Beam FileSystems paths. "
                "Without --live only the plan is printed.",
    next_step=next_step))
