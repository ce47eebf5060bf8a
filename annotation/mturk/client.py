"""The MTurk client through boto3: the sandbox endpoint unless `live`, credentials only from boto3's standard chain
(environment, shared files, profile, instance role), never logged or stored; which endpoint a batch lives on."""
from picforge.errors import InputError

REGION = "us-east-1"
SANDBOX_ENDPOINT = "https://mturk-requester-sandbox.us-east-1.amazonaws.com"
LIVE_ENDPOINT = "https://mturk-requester.us-east-1.amazonaws.com"
SANDBOX, LIVE = "sandbox", "live"
QUESTIONS_BATCH = "mturk-questions"   # a batch of prepared question files (no gold checks, no decisions)


class MTurkFailure(RuntimeError):
    """An MTurk call failed; the message says what is already recorded and how to resume."""


def mturk_client(live, profile=None):
    """A boto3 MTurk client on the sandbox (default) or production endpoint, credentials from boto3's chain."""
    import boto3
    from botocore.config import Config
    session = boto3.Session(profile_name=profile)
    return session.client("mturk", region_name=REGION, endpoint_url=LIVE_ENDPOINT if live else SANDBOX_ENDPOINT,
                          config=Config(retries={"mode": "standard", "max_attempts": 5}))


def environment(live):
    return LIVE if live else SANDBOX


def require_environment(plan, live, batch_id):
    """Refuse to touch a batch's HITs on the other endpoint than the one it was created on."""
    if plan.get("environment") != environment(live):
        flag = "with --live" if plan.get("environment") == LIVE else "without --live"
        raise InputError(f"batch {batch_id!r} lives in the MTurk {plan.get('environment')}; run this verb {flag}")


def error_text(err):
    """'Code: message' of a botocore ClientError."""
    error = err.response.get("Error", {})
    return f"{error.get('Code', 'error')}: {error.get('Message', '')}".strip()
