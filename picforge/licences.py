"""A release's licence, worked out from the inputs it redistributes: the licences their terms allow, the default
among them, a --license checked against them (or a maintainer's recorded override), and the card's paragraph."""
from picforge.errors import InputError

# The licences (Hugging Face ids) a release may carry when it redistributes an input under each licence, the
# default first. CC BY-SA 3.0 §4(b) allows the same licence or a later version with the same elements (BY-SA 4.0);
# BY-SA 4.0 only itself; BY-NC 4.0 any licence keeping the non-commercial term; an input under its own terms
# (`other`) only those terms.
COMPATIBLE = {
    "cc-by-sa-3.0": ("cc-by-sa-3.0", "cc-by-sa-4.0"),
    "cc-by-sa-4.0": ("cc-by-sa-4.0",),
    "cc-by-4.0": ("cc-by-4.0", "cc-by-sa-4.0", "cc-by-nc-4.0", "cc-by-nc-sa-4.0"),
    "cc-by-nc-4.0": ("cc-by-nc-4.0", "cc-by-nc-sa-4.0"),
    "other": ("other",),
}
# English Wikipedia's text moved from CC BY-SA 3.0 to 4.0 with the Terms of Use in force from this day (UTC):
# revisions saved before it are CC BY-SA 3.0, later ones CC BY-SA 4.0.
WIKIPEDIA_BY_SA_4_FROM = "2023-06-07"


def wikipedia_license(revision_dates):
    """(licence id, words) of English Wikipedia text from revisions saved on `revision_dates` (ISO strings; an
    empty one is unknown): BY-SA 3.0 when every revision predates the June 2023 move, else BY-SA 4.0 (which 3.0
    text may carry too)."""
    known = sorted(d for d in revision_dates if d)
    span = f"{known[0][:10]} to {known[-1][:10]}" if known else ""
    if known and len(known) == len(revision_dates) and known[-1][:10] < WIKIPEDIA_BY_SA_4_FROM:
        return "cc-by-sa-3.0", (f"{len(known)} revisions saved {span}, before English Wikipedia moved to CC BY-SA "
                                "4.0 (June 2023), so under CC BY-SA 3.0")
    if len(known) < len(revision_dates):
        return "cc-by-sa-4.0", (f"{len(revision_dates)} revisions, {len(revision_dates) - len(known)} of them with "
                                "no date recorded in the run, so taken as CC BY-SA 4.0 (what 3.0 text may carry "
                                "too; re-mine to record the dates)")
    return "cc-by-sa-4.0", (f"{len(known)} revisions saved {span}, some after English Wikipedia moved to CC BY-SA "
                            "4.0 (June 2023): CC BY-SA 4.0, which the older revisions' CC BY-SA 3.0 allows too")


def wikipedia_license_of_dump(dump_dates):
    """(licence id, words) of English Wikipedia text read from dumps dated `dump_dates` (YYYYMMDD, from their file
    names; none known: taken as BY-SA 4.0): a dump older than the June 2023 move holds only CC BY-SA 3.0 revisions."""
    latest = max(dump_dates, default="")
    if latest and f"{latest[:4]}-{latest[4:6]}-{latest[6:8]}" < WIKIPEDIA_BY_SA_4_FROM:
        return "cc-by-sa-3.0", (f"revisions of a dump dated {latest}, all saved before English Wikipedia moved to CC "
                                "BY-SA 4.0 (June 2023), so under CC BY-SA 3.0")
    return "cc-by-sa-4.0", ("revision dates not recorded in the run" + (f" (dump dated {latest})" if latest else "")
                            + ", so taken as CC BY-SA 4.0, which CC BY-SA 3.0 text may carry too")


def allowed_licenses(inputs):
    """The licences every redistributed input's terms allow, default first; `other` alone (each part keeps its own
    terms) when no licence meets them all."""
    redistributed = [i for i in inputs if i.redistributed]
    if not redistributed:
        return ["other"]
    common = [lid for lid in COMPATIBLE.get(redistributed[0].license_id, (redistributed[0].license_id,))
              if all(lid in COMPATIBLE.get(i.license_id, (i.license_id,)) for i in redistributed)]
    return common or ["other"]


def default_license(inputs):
    """(licence id, reason) of a release built from `inputs` (croissant.Input): the first licence the terms of
    every input it redistributes allow; inputs it only reads (a word filter) are named but do not bind it."""
    allowed = allowed_licenses(inputs)
    kept = [i.terms for i in inputs if i.redistributed]
    read = [i.terms for i in inputs if not i.redistributed]
    reason = "It redistributes: " + "; ".join(kept) + "." if kept else "It redistributes no input's text."
    if allowed == ["other"] and len(kept) > 1:
        reason += " No one licence meets all of these terms, so each part keeps its own (`other`)."
    if read:
        reason += " Not redistributed, so not binding the licence: " + "; ".join(read) + "."
    return allowed[0], reason


def license_conflicts(license_id, inputs):
    """Why `license_id` breaks the terms of an input the release redistributes ([] when it does not)."""
    allowed = allowed_licenses(inputs)
    if license_id in allowed:
        return []
    return [f"{i.name or 'an input'} is redistributed under `{i.license_id}`, which allows "
            + " or ".join(f"`{lid}`" for lid in COMPATIBLE.get(i.license_id, (i.license_id,)))
            for i in inputs if i.redistributed
            and license_id not in COMPATIBLE.get(i.license_id, (i.license_id,))] or [
        f"the redistributed inputs' terms allow only {', '.join(f'`{lid}`' for lid in allowed)}"]


def check_license(license_id, inputs, override=None):
    """The licence a release carries: `license_id` (default: the inputs' default). One that conflicts with a
    redistributed input's terms is refused (InputError naming why) unless `override` records the reason."""
    default, _ = default_license(inputs)
    chosen = license_id or default
    conflicts = license_conflicts(chosen, inputs)
    if conflicts and not (override or "").strip():
        raise InputError(f"--license {chosen}: conflicts with what the release redistributes: {'; '.join(conflicts)}"
                         f"; pass --license {default} (or leave it out), or record why with --license-override "
                         "\"REASON\"")
    return chosen


def license_section(license_id, inputs, override=None, attribution=""):
    """The card's License section: the licence, why (the redistributed inputs' terms), a recorded override, and
    the attribution the licences ask for."""
    default, reason = default_license(inputs)
    conflicts = license_conflicts(license_id, inputs)
    if license_id == default:
        head = f"`{license_id}`, worked out from what this release redistributes."
    elif not conflicts:
        head = (f"`{license_id}`, chosen with --license; the redistributed inputs allow it (the default is "
                f"`{default}`).")
    else:
        head = (f"`{license_id}`, chosen with --license against the redistributed inputs' terms "
                f"({'; '.join(conflicts)}); the maintainer recorded this override: \"{override.strip()}\". The "
                f"licence these inputs allow is `{default}`.")
    return "\n\n".join(part for part in (f"{head} {reason}", attribution) if part)
