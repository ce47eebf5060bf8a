"""`picforge cosimlex release --run RUN_DIR --out RELEASE_DIR`: the Hugging Face dataset of the CoSimLex rows."""


def register(verbs):
    parser = verbs.add_parser("release", help="write the CoSimLex rows as a Hugging Face dataset with its card",
                              description="Read cosimlex-final and write data/test.jsonl and .parquet, README.md "
                                          "(card with statistics and licence), stats.json, a plot and MANIFEST.json.")
    parser.add_argument("--run", required=True, help="run directory holding cosimlex-final")
    parser.add_argument("--out", required=True, help="release directory to write (local path, replaced whole)")
    parser.add_argument("--license", help="licence id for the card (default `other`: the SimLex-999 pairs keep "
                                          "their authors' terms, the Wikipedia contexts CC BY-SA)")
    parser.add_argument("--force", action="store_true", help="replace --out even if it holds something else")
    parser.set_defaults(func=run)


def run(args):
    from companions.cosimlex.release import write_release
    manifest = write_release(args.run, args.out, license_id=args.license, force=args.force)
    state = " (up to date, skipped)" if manifest.get("skipped") else ""
    print(f"{args.out}: test {manifest['counts']['test']} pairs, license {manifest['license']}{state}")
    return 0
