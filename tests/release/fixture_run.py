"""A small run directory for release tests: eight written pages, their sentences, 12 triplets and annotations."""
import hashlib
import json

from picforge.rundir import RunDir
from tests.triplets import triplet, triplet_side

# page_id -> (title, categories, paragraphs of sentences)
PAGES = {
    101: ("Harlow Mutual Bank", ["Banks of England", "Companies established in 1872"], [
        ["Harlow Mutual Bank is a building society and retail bank headquartered in Chelmsford, Essex.",
         "It was founded in 1872 by a group of grain merchants who wanted a safe place to deposit the proceeds "
         "of the harvest.",
         "By the end of the nineteenth century the society had opened branches in most market towns of the county.",
         "In 1921 it absorbed two smaller societies and adopted its present name."],
        ["The bank expanded rapidly during the housing boom of the 1980s.",
         "Its mortgage book grew fourfold in a decade, and its deposits passed two billion pounds in 1989.",
         "In the recession that followed, the bank wrote off a massive figure of more than four hundred million "
         "pounds in bad loans.",
         "Its share price suffered a sharp drop of almost forty per cent in a single week of October 1991.",
         "Analysts blamed the losses on lending to commercial property developers in London.",
         "A steep decline in new lending followed as the board tightened its criteria."],
        ["The chairman resigned in 1992 and was replaced by a former Treasury official.",
         "The new management closed forty branches and sold the commercial loan portfolio.",
         "Every year the board publishes an annual report describing the bank's capital position and lending.",
         "The society returned to profit in 1995 and has remained independent since then.",
         "Today it employs about three thousand people and serves more than a million members."]]),
    102: ("Monument to the Drowned Sailors", ["Monuments and memorials in Cornwall", "Granite sculptures"], [
        ["The Monument to the Drowned Sailors is a granite memorial on the harbour wall at Porthallow in Cornwall.",
         "It commemorates the forty-one fishermen who were lost when a storm struck the pilchard fleet in 1893.",
         "The sculptor, Edith Carne, won a public competition organised by the parish council in 1897."],
        ["The memorial is dominated by a massive figure of a kneeling woman, carved from a single block of grey "
         "granite.",
         "She faces the sea with her hands folded and her shawl drawn over her head.",
         "The block was quarried at De Lank and hauled to the coast by a team of twelve horses.",
         "A round table of carved slate stands before the statue and carries the names of the dead.",
         "Visitors traditionally leave shells and flowers on its surface."],
        ["The monument was unveiled by the Bishop of Truro in the summer of 1899.",
         "A river crossing was built at the same time so that mourners from the village of Gweek could reach the "
         "harbour.",
         "The memorial was restored in 1994 after salt spray had worn away several of the names.",
         "It was designated a listed structure in 2003.",
         "A service of remembrance is held beside it every November."]]),
    103: ("Ridgeview Racecourse", ["Horse racing venues in England", "Sports venues in North Yorkshire"], [
        ["Ridgeview Racecourse is a thoroughbred horse racing venue near Malton in North Yorkshire.",
         "Racing has taken place on the site since 1838, when a local landowner laid out a course on his estate.",
         "The course is a left-handed oval of about one mile and six furlongs."],
        ["The going is usually firm in summer, and trainers regard it as a fast track that suits front-running "
         "horses.",
         "Several course records were set there during the dry summer of 1976.",
         "The grandstand was rebuilt in 1965 and can hold around eight thousand spectators."],
        ["Because many runners are trained nearby, the town has long been a stable location, with dozens of "
         "racing yards housing horses in the surrounding villages.",
         "More than twenty yards lie within three miles of the grandstand.",
         "Stable staff walk the horses to the course on race mornings along a dedicated bridleway.",
         "The annual meeting in August is the highlight of the local calendar."],
        ["The racecourse was sold to a charitable trust in 2008.",
         "The trust has since invested in new drainage and a modern weighing room.",
         "Ridgeview stages twenty fixtures a year, most of them on the flat."]]),
    104: ("Kestrel Fault Zone", ["Geology of Scotland", "Seismic faults of Europe"], [
        ["The Kestrel Fault Zone is a system of faults that crosses the Southern Uplands of Scotland from "
         "south-west to north-east.",
         "It formed during the closure of the Iapetus Ocean about four hundred million years ago.",
         "Movement along the zone has been negligible since the end of the Carboniferous period."],
        ["Along much of its length the fault is marked by a sharp drop in the land surface, where softer rocks "
         "have been eroded.",
         "At Glen Arrow the scarp reaches a height of ninety metres.",
         "Geologists consider the glen a stable location because no earthquakes have been recorded there in "
         "historical times.",
         "The engineers who planned the Arrow reservoir took the same view.",
         "Their survey found that the glen remained a stable location even under the weight of a full reservoir."],
        ["The dam rests on a solid foundation of greywacke bedrock that was exposed by blasting in 1958.",
         "Seepage through the rock has been monitored continuously since the reservoir filled.",
         "Small tremors were detected in 1986, but they were traced to quarrying nearby."],
        ["The fault zone is crossed by several long-distance footpaths.",
         "Exposures in the river cuttings are visited by university field classes every spring.",
         "The British Geological Survey published a detailed map of the zone in 2011."]]),
    105: ("Iron Lung (band)", ["English heavy metal musical groups", "Musical groups from Birmingham"], [
        ["Iron Lung were an English rock band formed in Birmingham in 1978.",
         "The original line-up consisted of the singer Maggie Rourke, the guitarists Tom Ashby and Neil Vance, "
         "and the drummer Carl Doyle.",
         "The group played loud, fast heavy metal influenced by the punk scene of the late 1970s."],
        ["Their first single was released in 1980 on a small independent record label run from a shop in Digbeth.",
         "It sold well enough for the band to be offered a contract by a major company the following year.",
         "The debut album met a cold reception from critics, who found its songs crude and repetitive.",
         "It nevertheless reached the top forty and was followed by a tour of Germany and the Netherlands."],
        ["Vance left in 1984 and was replaced by the session guitarist Phil Marsh.",
         "The band's third album, recorded in Los Angeles, adopted a more polished sound.",
         "Sales declined, and the group was dropped by its label in 1987.",
         "Iron Lung split up in 1989 after a farewell concert at the Birmingham Odeon."],
        ["The original members reunited in 2012 for a series of festival appearances.",
         "A compilation of their early recordings was reissued in 2015."]]),
    106: ("Lead in the Roman water supply", ["Water supply in ancient Rome", "Lead poisoning"], [
        ["Lead was widely used in the water supply of ancient Rome, above all for pipes.",
         "The Latin word for lead, plumbum, is the origin of the English word plumbing.",
         "Pipes were made by folding sheets of cast lead around a wooden core and sealing the seam."],
        ["Lead is a heavy metal that accumulates in bones and soft tissue when it is swallowed.",
         "Modern scholars have debated whether the pipes exposed the population to dangerous doses.",
         "In most of the city the water was hard and deposited a layer of calcium carbonate inside the pipes.",
         "This crust would have limited the amount of metal dissolved in the water."],
        ["Excavated pipes often carry a stamped inscription naming the emperor or the official in charge.",
         "Archaeologists treat such an inscription as a record label that dates the pipe to a particular reign.",
         "Samples from the Tiber delta show lead levels in the river water up to a hundred times above natural "
         "values.",
         "The contamination peaked in the first century and declined after the collapse of the western empire."],
        ["Roman writers such as Vitruvius recommended clay pipes as healthier than lead ones.",
         "Their advice was rarely followed in the capital."]]),
    107: ("Second Beaumont Antarctic Expedition", ["Antarctic expeditions", "1911 in Antarctica"], [
        ["The Second Beaumont Antarctic Expedition was a British scientific expedition to the Ross Ice Shelf "
         "between 1910 and 1912.",
         "It was led by the geologist Arthur Beaumont and financed largely by public subscription.",
         "The ship Albatross carried twenty-two men and sixty sledge dogs south from New Zealand."],
        ["The party established its base camp on a rocky spit at the edge of the ice shelf in January 1911.",
         "A prefabricated hut was erected there and insulated with seaweed and felt.",
         "When the sledging parties returned in May, they found a cold reception at the hut, where the stove had "
         "failed and the walls were lined with frost.",
         "Two men suffered frostbite before the stove could be repaired."],
        ["River crossing proved the hardest part of the spring journey, as a party of four forded the meltwater "
         "channels below the Mackay Glacier.",
         "They mapped more than two hundred miles of coastline and collected fossils from the dry valleys.",
         "The expedition returned to Lyttelton in March 1912."],
        ["Beaumont's account of the journey was published in two volumes in 1914.",
         "The hut still stands and is maintained by a heritage trust."]]),
    108: ("Dana Whitfield", ["British politicians", "Members of Parliament for Suffolk constituencies"], [
        ["Dana Whitfield is a British politician who has been Member of Parliament for Stowmarket since 2005.",
         "She was educated at a comprehensive school in Ipswich and read economics at the University of Leeds.",
         "Before entering politics she worked for a housing association in Norwich."],
        ["Whitfield's rise within her party was rapid, and commentators described her career as a fast track to "
         "the cabinet.",
         "She was appointed a junior minister in the housing department within three years of her election.",
         "Her campaign volunteers, who met in a converted barn outside Stowmarket, became known as her base camp.",
         "She chaired a round table on rural housing that brought together councils, builders and tenants."],
        ["In 2012 she published a pamphlet arguing that affordable rents were the solid foundation of any housing "
         "policy.",
         "Each year her department's annual report set out the number of homes completed.",
         "She left the government in 2016 after disagreeing with cuts to the housing budget."],
        ["Whitfield is married with two children and lives near Debenham.",
         "She is a trustee of a charity that restores village halls."]]),
}

# triplet_id, phrase, page1, page2, q1, q2, same_meaning, ps_q1, ps_q2
ANNOTATIONS = [
    ("t01", "massive figure", 101, 102, "huge sum", "giant statue", False, True, True),
    ("t02", "sharp drop", 101, 104, "steep decline", "abrupt descent", False, None, True),
    ("t03", "stable location", 103, 104, "equestrian base", "secure site", False, True, True),
    ("t04", "heavy metal", 105, 106, "hard rock music", "dense toxic element", False, True, True),
    ("t05", "cold reception", 105, 107, "hostile response", "freezing welcome", False, None, True),
    ("t06", "fast track", 103, 108, "quick racing surface", "rapid route", False, True, None),
    ("t07", "solid foundation", 104, 108, "firm rock base", "essential basis", False, True, True),
    ("t08", "record label", 105, 106, "music publisher", "dating mark", False, True, False),
    ("t09", "base camp", 107, 108, "expedition headquarters", "core supporters", False, False, True),
    ("t10", "round table", 102, 108, "circular slab", "panel discussion", False, True, True),
    ("t11", "annual report", 101, 108, "yearly statement", "yearly review", True, True, None),
    ("t12", "river crossing", 102, 107, "river bridge", "stream passage", True, None, None),
]


def page_records():
    """Page records (schema page) of the fixture pages, paragraphs separated by blank lines."""
    records = []
    for page_id, (title, categories, paragraphs) in PAGES.items():
        texts = [" ".join(sentences) for sentences in paragraphs]
        records.append({"page_id": page_id, "title": title,
                        "url": "https://en.wikipedia.org/wiki/" + title.replace(" ", "_"),
                        "text": "\n\n".join(texts), "categories": categories, "paragraphs": texts,
                        "missing_words": [], "template_words_lost": []})
    return records


def article_records():
    """Article records (schema article, stage read-dump) of the fixture pages: revisions of 2016, before English
    Wikipedia's text moved to CC BY-SA 4.0."""
    return [{"page_id": page_id, "title": title, "url": "https://en.wikipedia.org/wiki/" + title.replace(" ", "_"),
             "revision_id": 700000000 + page_id, "revision_timestamp": f"2016-04-{page_id - 100:02d}T12:00:00Z",
             "wikitext_sha1": hashlib.sha1(title.encode()).hexdigest(), "wikitext_bytes": 1000}
            for page_id, (title, _, _) in PAGES.items()]


def sentence_records():
    """Sentence records (schema sentence) in page order."""
    records = []
    for page_id, (_, _, paragraphs) in PAGES.items():
        flat = [(p, s) for p, sentences in enumerate(paragraphs) for s in sentences]
        for idx, (paragraph, text) in enumerate(flat):
            records.append({"sentence_id": f"{page_id}:{idx}", "page_id": page_id, "idx": idx,
                            "paragraph": paragraph, "text": text, "n_words": len(text.split()), "broken": ""})
    return records


def _side(page_id, phrase):
    title = PAGES[page_id][0]
    sentences = [s for paragraph in PAGES[page_id][2] for s in paragraph]
    return triplet_side(page_id, sentences, phrase, title=title,
                        url="https://en.wikipedia.org/wiki/" + title.replace(" ", "_"))


def triplet_records():
    """Triplet records (schema triplet) for every annotated phrase, plus one that was never annotated."""
    rows = [(tid, phrase, p1, p2) for tid, phrase, p1, p2, *_ in ANNOTATIONS] + [("t13", "grey granite", 102, 102)]
    return [triplet(tid, phrase, _side(p1, phrase), _side(p2, phrase), semantic_score=-0.1 + 0.02 * n,
                    domain_score=0.05 * n)
            for n, (tid, phrase, p1, p2) in enumerate(rows)]


# PS positives the PS experts endorsed in a corrected form: triplet_id → corrected second phrase.
PS_CORRECTIONS = {"t11": "yearly report"}


def annotation_record(n, tid, phrase, q1, q2, same, ps1, ps2):
    """One FinalAnnotation with every annotation kept; PS-endorsed pairs keep the expert's paraphrase or a
    correction from PS_CORRECTIONS."""
    rule = "round1" if n % 4 else "round2"
    return {"triplet_id": tid, "phrase": phrase, "annotator": f"A{n % 3 + 1}", "q1": q1, "q2": q2,
            "same_meaning": same, "q1_rule": rule, "q2_rule": rule, "q3_rule": rule,
            "ps_q1": ps1, "ps_q1_phrase": PS_CORRECTIONS.get(tid, q1) if ps1 else None,
            "ps_q2": ps2, "ps_q2_phrase": q2 if ps2 else None}


def annotation_records():
    """FinalAnnotation records (schema final_annotation)."""
    return [annotation_record(n, tid, phrase, q1, q2, same, ps1, ps2)
            for n, (tid, phrase, _, _, q1, q2, same, ps1, ps2) in enumerate(ANNOTATIONS)]


STAGES = {"read-dump": ("article", article_records), "clean": ("page", page_records),
          "sentences": ("sentence", sentence_records),
          "select": ("triplet", triplet_records), "final_annotations": ("final_annotation", annotation_records)}


def write_stage(root, stage, records):
    """Write one stage of a run directory, its fingerprint depending on its records."""
    digest = hashlib.sha256(json.dumps(records, sort_keys=True).encode()).hexdigest()
    RunDir(str(root)).write_stage(stage, records, STAGES[stage][0], inputs={"records_sha256": digest}, options={})


def make_run(root, skip=(), **overrides):
    """A run directory at `root` with the fixture stages; `overrides` replaces a stage's records."""
    for stage, (_, records) in STAGES.items():
        if stage not in skip:
            write_stage(root, stage, overrides.get(stage, records()))
    return str(root)
