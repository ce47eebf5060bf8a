"""Options and error reporting shared by the `picforge annotate mturk …` verbs."""
import argparse
import functools
import sys

from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError

from annotation.mturk import client as mturk_client, fees as mturk_fees, hits as mturk_hits, round1
from annotation.cli.common import add_ledger_options, batch_name, csv_list, open_ledger
from picforge.options import finite_float, non_negative_int, positive_int

DEFAULT_HIT_TYPE = mturk_hits.HitTypeSettings()
DEFAULT_ROUND1 = round1.Round1Settings()
# Batches whose HITs were created through the API (the verbs that poll MTurk act on these).
API_KINDS = (round1.API_BATCH, mturk_client.QUESTIONS_BATCH)


def add_batch_options(parser, endpoint=True):
    """--run/--ledger, --batch and (for verbs that call MTurk) --live and --profile."""
    add_ledger_options(parser)
    parser.add_argument("--batch", required=True, metavar="NAME", type=batch_name,
                        help="batch name (its id in the ledger)")
    if endpoint:
        add_endpoint_options(parser)


def add_endpoint_options(parser):
    parser.add_argument("--live", action="store_true",
                        help="use the production MTurk endpoint (real money); the sandbox otherwise")
    parser.add_argument("--profile", metavar="NAME",
                        help="AWS profile to take credentials from (default: boto3's standard chain)")


def add_plan_options(parser):
    """Options fixing how a new batch is laid out; an existing batch must be given the same ones."""
    plan = parser.add_argument_group("batch plan (fixed once the batch exists)")
    plan.add_argument("--gold", metavar="GOLD.jsonl",
                      help="bank of verified questions with known answers (schemas/gold_question.schema.json); "
                           "needed when the batch is new")
    plan.add_argument("--limit", type=positive_int, metavar="N", help="verify at most N expert annotations in this batch")
    plan.add_argument("--questions-per-hit", type=positive_int, default=DEFAULT_ROUND1.questions_per_hit, metavar="N",
                      help="questions on one HIT page, gold checks included (default %(default)s)")
    plan.add_argument("--gold-per-hit", type=non_negative_int, metavar="N",
                      help=f"gold check questions mixed into each HIT (default: one per {round1.GOLD_SHARE} questions, "
                           f"at most --min-worker-gold: {DEFAULT_ROUND1.gold_per_hit} on a page of "
                           f"{DEFAULT_ROUND1.questions_per_hit})")
    plan.add_argument("--practice", type=non_negative_int, default=DEFAULT_ROUND1.practice, metavar="N",
                      help="practice questions with feedback shown above the questions (default %(default)s)")
    plan.add_argument("--qualification-pass", type=non_negative_int, default=DEFAULT_ROUND1.qualification_pass, metavar="N",
                      help=f"right answers needed out of the {DEFAULT_ROUND1.qualification_questions} "
                           "qualification questions (default %(default)s)")
    plan.add_argument("--assignments", type=positive_int, default=DEFAULT_ROUND1.assignments, metavar="N",
                      help="workers per HIT (default %(default)s, as in PiC: each annotation verified once)")
    plan.add_argument("--max-gold-errors", type=non_negative_int, default=DEFAULT_ROUND1.max_gold_errors, metavar="N",
                      help="wrong gold answers an assignment may have and still count (default %(default)s)")
    plan.add_argument("--min-worker-gold", type=positive_int, default=DEFAULT_ROUND1.min_worker_gold, metavar="N",
                      help="distinct gold questions a worker must have answered before their gold accuracy over all "
                           "their assignments is judged (default %(default)s)")
    plan.add_argument("--min-worker-gold-accuracy", type=finite_float, default=DEFAULT_ROUND1.min_worker_gold_accuracy,
                      metavar="SHARE", help="share of those a worker must answer right, or all their assignments are "
                                            "rejected (default %(default)s)")


def round1_settings(args):
    return round1.Round1Settings(
        questions_per_hit=args.questions_per_hit, gold_per_hit=args.gold_per_hit, practice=args.practice,
        qualification_pass=args.qualification_pass, assignments=args.assignments,
        max_gold_errors=args.max_gold_errors, min_worker_gold=args.min_worker_gold,
        min_worker_gold_accuracy=args.min_worker_gold_accuracy)


def usd_amount(whole_cents):
    """An argparse type for USD options: the amount as written, refused unless finite and at least a cent."""
    def parse(text):
        problem = mturk_fees.amount_problem(text, whole_cents)
        if problem:
            raise argparse.ArgumentTypeError(f"{text!r} {problem}")
        return text.strip()
    return parse


def add_budget_option(parser):
    parser.add_argument("--max-spend", type=usd_amount(whole_cents=False), metavar="USD",
                        help="refuse the batch if rewards + MTurk fees exceed this (required with --live)")


def add_hit_type_options(parser, round1_defaults=True):
    """Reward, texts, timing and worker requirements; round 1 defaults reward and texts to PiC's, other
    batches must give --reward, --title and --description."""
    hit_type = parser.add_argument_group("HIT type")
    if round1_defaults:
        hit_type.add_argument("--reward", type=usd_amount(whole_cents=True), default=DEFAULT_HIT_TYPE.reward,
                              metavar="USD",
                              help="reward per HIT (default %(default)s: PiC paid $5.6 per 30 answers, fees "
                                   "included, i.e. $4.67 + $0.93 fee per HIT of 30 questions)")
    else:
        hit_type.add_argument("--reward", type=usd_amount(whole_cents=True), required=True, metavar="USD",
                              help="reward per HIT")
    texts = {"title": "title workers see in the HIT list", "description": "what the task asks, shown with the title",
             "keywords": "comma-separated words workers can search for"}
    for name, text in texts.items():
        if round1_defaults:
            hit_type.add_argument(f"--{name}", default=getattr(DEFAULT_HIT_TYPE, name), metavar="TEXT",
                                  help=f"{text} (default: round 1's)")
        else:
            hit_type.add_argument(f"--{name}", required=name != "keywords", default="", metavar="TEXT", help=text)
    hit_type.add_argument("--duration", type=positive_int, default=DEFAULT_HIT_TYPE.assignment_duration, metavar="SECONDS",
                          help="time a worker has for one HIT (default %(default)s)")
    hit_type.add_argument("--lifetime", type=positive_int, default=DEFAULT_HIT_TYPE.lifetime, metavar="SECONDS",
                          help="how long HITs stay on offer (default %(default)s)")
    hit_type.add_argument("--auto-approve", type=non_negative_int, default=DEFAULT_HIT_TYPE.auto_approval_delay, metavar="SECONDS",
                          help="MTurk approves unreviewed work after this delay (default %(default)s)")
    hit_type.add_argument("--locales", type=csv_list, default=",".join(DEFAULT_HIT_TYPE.locales), metavar="CC,CC",
                          help="worker countries allowed (default %(default)s)")
    hit_type.add_argument("--min-approval-rate", type=non_negative_int, default=DEFAULT_HIT_TYPE.min_approval_rate, metavar="PCT",
                          help="minimum approval rate of workers, 0 for none (default %(default)s)")
    hit_type.add_argument("--min-approved-hits", type=non_negative_int, default=DEFAULT_HIT_TYPE.min_approved_hits, metavar="N",
                          help="minimum approved HITs of workers, 0 for none (default %(default)s)")


def hit_type_settings(args):
    return mturk_hits.HitTypeSettings(
        reward=args.reward, assignment_duration=args.duration, lifetime=args.lifetime,
        auto_approval_delay=args.auto_approve, locales=tuple(args.locales),
        min_approval_rate=args.min_approval_rate, min_approved_hits=args.min_approved_hits,
        title=args.title, description=args.description, keywords=args.keywords)


def api_batch(args):
    """(ledger, plan, client) of an API batch, checked to live on the endpoint --live selects."""
    ledger = open_ledger(args)
    plan = round1.stored_plan(ledger, args.batch, kinds=API_KINDS)
    mturk_client.require_environment(plan, args.live, args.batch)
    return ledger, plan, client(args)


def client(args):
    return mturk_client.mturk_client(args.live, args.profile)


def reports_mturk_errors(run):
    """Turn MTurk/AWS failures into one `picforge: error:` line and exit status 1 (no traceback)."""
    @functools.wraps(run)
    def wrapper(args):
        try:
            return run(args)
        except NoCredentialsError:
            print("picforge: error: no AWS credentials found; provide them the way boto3 looks for them "
                  "(AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, ~/.aws/credentials, or --profile NAME)", file=sys.stderr)
            return 1
        except (mturk_client.MTurkFailure, ClientError, BotoCoreError) as err:
            print(f"picforge: error: {err}", file=sys.stderr)
            return 1
    return wrapper
