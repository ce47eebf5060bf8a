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


def fee_rate(max_assignments):
    """MTurk's commission on a HIT created with `max_assignments`: 20 %, or 40 % from 10 assignments on (a HIT
    created below 10 never reaches 10: `check_can_ask_again`)."""
    return LARGE_HIT_FEE_RATE if max_assignments >= LARGE_HIT_ASSIGNMENTS else FEE_RATE


def check_can_ask_again(hit_id, created, total, more):
    """Refuse (InputError) adding `more` assignments to a HIT created with `created` that has `total` now, where MTurk
    would refuse it (InvalidMaximumAssignmentsIncrease: a HIT created below 10 assignments cannot reach 10)."""
    if created < LARGE_HIT_ASSIGNMENTS <= total + more:
        raise InputError(f"HIT {hit_id} was created with {created} assignment(s) and has {total}: MTurk cannot raise "
                         f"a HIT created with fewer than {LARGE_HIT_ASSIGNMENTS} to {LARGE_HIT_ASSIGNMENTS} or more; "
                         "cancel the batch (`picforge annotate cancel-batch`) so its items go to a new batch")


def batch_cost(reward, assignments, hits):
    """{'rewards', 'fees', 'total'} in USD (Decimal) of `hits` HITs with `assignments` assignments each (asked again:
    `hits` rounds of `assignments` more on HITs created with `assignments`, at the same fee)."""
    reward = Decimal(reward)
    fee = max(MIN_FEE, (reward * fee_rate(assignments)).quantize(CENT, rounding=ROUND_HALF_UP))
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


def check_balance(client, ledger, batch_id, plan, asked_again=0):
    """Refuse (InputError) when the account holds less than the HITs still to create and the `asked_again` HITs to
    ask again now cost."""
    with ledger.read() as q:
        to_create = len(plan["hits"]) - len(q.hits(batch_id))
    still = batch_cost(plan["hit_type"]["reward"], assignments_per_hit(plan), to_create + asked_again)["total"]
    balance = Decimal(client.get_account_balance()["AvailableBalance"])
    if balance < still:
        again = f" and the {asked_again} HIT(s) to ask again" if asked_again else ""
        raise InputError(f"the MTurk account holds ${balance:.2f}, less than the ${still:.2f} the {to_create} "
                         f"HIT(s) still to create{again} cost; prepay more on the requester site first")
