"""What an MTurk batch costs (rewards plus MTurk's commission) and the checks before any HIT is created: amounts,
the --max-spend cap, the account balance."""
from decimal import ROUND_HALF_UP, Decimal

from annotation.mturk.client import QUESTIONS_BATCH, environment
from picforge.errors import InputError

# MTurk's commission: 20% of the reward (at least $0.01) per assignment, 40% for HITs with 10+ assignments.
FEE_RATE, LARGE_HIT_FEE_RATE, LARGE_HIT_ASSIGNMENTS, MIN_FEE = Decimal("0.20"), Decimal("0.40"), 10, Decimal("0.01")
CENT = Decimal("0.01")


def amount_problem(text, whole_cents=False):
    """What is wrong with `text` as an amount in USD ('' if nothing): it must be a finite number of at least
    one cent (NaN, Infinity and negatives are refused), in whole cents when `whole_cents`."""
    try:
        amount = Decimal(str(text).strip())
    except ArithmeticError:
        return "not an amount in USD; give a number such as 1.50"
    if not amount.is_finite() or amount < CENT:
        return "must be a finite amount of at least 0.01 USD (such as 1.50)"
    if whole_cents and amount != amount.quantize(CENT):
        return "must be in whole cents (such as 1.50)"
    return ""


def batch_cost(reward, assignments, hits):
    """{'rewards', 'fees', 'total'} in USD (Decimal) of `hits` HITs with `assignments` assignments each."""
    reward = Decimal(reward)
    rate = LARGE_HIT_FEE_RATE if assignments >= LARGE_HIT_ASSIGNMENTS else FEE_RATE
    fee = max(MIN_FEE, (reward * rate).quantize(CENT, rounding=ROUND_HALF_UP))
    count = assignments * hits
    return {"rewards": reward * count, "fees": fee * count, "total": (reward + fee) * count}


def describe_cost(cost, hits, assignments, reward):
    return (f"{hits} HIT(s) x {assignments} assignment(s) x ${Decimal(reward):.2f} = ${cost['rewards']:.2f} "
            f"+ MTurk fees ${cost['fees']:.2f} = ${cost['total']:.2f}")


def check_budget(cost, max_spend, live):
    """Refuse (InputError) a live run without a cap, or any run whose total exceeds the cap."""
    if live and max_spend is None:
        raise InputError("--live spends real money: give --max-spend USD (the most this batch may cost)")
    if max_spend is not None and amount_problem(max_spend):
        raise InputError(f"--max-spend {max_spend}: {amount_problem(max_spend)}")
    if max_spend is not None and cost["total"] > Decimal(str(max_spend)):
        raise InputError(f"this batch costs ${cost['total']:.2f}, above --max-spend ${Decimal(str(max_spend)):.2f}; "
                         "raise the cap, or plan fewer HITs or assignments")


def announce_cost(batch_id, plan, what, live, max_spend, say=print, asked_again=0):
    """Say the batch's full cost (with `asked_again` HITs' worth of additional assignments, asked before or now),
    then refuse it above `max_spend` (or `live` without a cap), before any call."""
    reward, assignments, hits = plan["hit_type"]["reward"], assignments_per_hit(plan), len(plan["hits"])
    cost = batch_cost(reward, assignments, hits + asked_again)
    again = f" (of which {asked_again} asked again)" if asked_again else ""
    say(f"batch {batch_id} [{environment(live)}]: {what} in "
        + describe_cost(cost, hits + asked_again, assignments, reward).replace(" HIT(s)", f" HIT(s){again}", 1))
    check_budget(cost, max_spend, live)


def assignments_per_hit(plan):
    """MaxAssignments of a batch's HITs (round-1 plans keep it in their settings)."""
    return plan["assignments"] if plan["kind"] == QUESTIONS_BATCH else plan["settings"]["assignments"]


def check_balance(client, ledger, batch_id, plan):
    """Refuse (InputError) when the account holds less than the HITs still to create cost."""
    with ledger.read() as q:
        to_create = len(plan["hits"]) - len(q.hits(batch_id))
    still = batch_cost(plan["hit_type"]["reward"], assignments_per_hit(plan), to_create)["total"]
    balance = Decimal(client.get_account_balance()["AvailableBalance"])
    if balance < still:
        raise InputError(f"the MTurk account holds ${balance:.2f}, less than the ${still:.2f} the {to_create} "
                         "HIT(s) still to create cost; prepay more on the requester site first")
