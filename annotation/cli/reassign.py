"""`picforge annotate reassign --batch B [--rows R1,R2]`: release blank or unfixed rows of an expert or second-round batch."""
from annotation.cli.common import add_ledger_options, batch_name, csv_list, open_ledger
from picforge import verbs


def add_options(parser):
    """The options of `picforge annotate reassign`."""
    add_ledger_options(parser)
    parser.add_argument("--batch", required=True, metavar="NAME", type=batch_name, help="expert batch id")
    parser.add_argument("--rows", type=csv_list, metavar="R1,R2,…",
                        help="the rows to release: triplet ids (expert batch) or item ids (verify2 batch); default: "
                             "every blank or unfixed row")


def run(args):
    from annotation import batches
    released = batches.reassign_rows(open_ledger(args), args.batch, args.rows)
    if not released:
        print(f"batch {args.batch}: no blank or unfixed row left to release; nothing to do")
        return 0
    print(f"batch {args.batch}: {len(released)} row(s) released for another annotator: {', '.join(released)}; "
          "run `picforge annotate export expert` (or `export verify2`) to hand them out")
    return 0


VERB = verbs.register(verbs.Verb(
    "annotate", "reassign", None, run, add_options,
    help="release rows an expert left blank or never fixed, for another annotator",
    description="Release rows of an expert batch that were left blank (or never returned) or rejected and "
                "never fixed, or rows of a second-round (verify2) batch left blank; the next `annotate export "
                "expert` (or `export verify2`) hands them out again, and a later sheet of this batch skips "
                "them. Running it again changes nothing."))
