"""The inline templates real pages use render their words: through the cleaner on the wikitext of the 103-page
sample's pages, and each renderer as a pure function of its parameters."""
import pytest

from pipeline.inline_templates import TEMPLATE_GAP, render, renders
from pipeline.stages.clean import clean_wikitext


@pytest.mark.parametrize("wikitext, paragraph", [
    ("'''Andorra''' ({{IPAc-en|audio=x.ogg|æ|n|ˈ|d|ɔ:|r|ə}}; {{IPA-ca|ənˈdorə|lang}}) is small.",
     "Andorra (/ænˈdɔ:rə/; [ənˈdorə]) is small."),
    ("Alkanes have the formula {{chem|C|''n''|H|2''n''+2}}.", "Alkanes have the formula CnH2n+2."),
    ("The {{nihongo|headquarters|本部道場|honbu dōjō}} opened.", "The headquarters (本部道場, honbu dōjō) opened."),
    ("Each is {{val|6.241|e=18}} electrons over 468&nbsp;km<sup>2</sup>.", "Each is 6.241×10¹⁸ electrons over 468 km²."),
    ("It splashed down at {{Coord|13|19|N|169|9|W|type:event}} at dawn.", "It splashed down at 13°19′N 169°9′W at dawn."),
    ("Swift{{'s}} satire, ANSI {{respell|AN|see}}, HA {{eqm}} H<sup>+</sup>.", "Swift's satire, ANSI AN-see, HA ⇌ H⁺."),
    ("Catalan<sup>a</sup> runs on a {{RailGauge|1435mm}} line in the 19<sup>th</sup> century.",
     "Catalan runs on a 1435 mm line in the 19th century."),
    ("The mean <math>A</math> of {{sfrac|1|4}} is {{nowrap|{{lang|fr|un quart}}}}.", "The mean A of 1/4 is un quart."),
    ("The brick is about {{convert|25|by|36|cm|0|abbr=on}} in size.", "The brick is about 25 by 36 cm in size."),
    ("Rain ranges from {{convert|400|to|1000|mm}} annually.", "Rain ranges from 400 to 1000 millimetres annually."),
    ("A {{convert|0.99|by|1.01|AU|Gm|lk=on|adj=on}} solar orbit.", "A 0.99 by 1.01-astronomical unit solar orbit."),
    ("Lows of {{convert|-40|C}} and a {{convert|5|mi|km|adj=on}} walk over {{convert|1|-|2|m}}.",
     "Lows of −40 °C and a 5-mile walk over 1–2 metres."),
    ("Reserves of {{convert|2.5|e6acre|e6ha|abbr=off}} and {{convert|700|koilbbl/d|abbr=on}}.",
     "Reserves of 2.5 million acres and 700 thousand bbl/d."),
    ("The Senate ({{lang-sq|Pleqësi}}) met; {{langx|de|Bundesrat}} too.", "The Senate (Albanian: Pleqësi) met; German: Bundesrat too."),
    ("{{As of|2013|June|8}}, {{as of|2010|lc=y}} and {{frac|3}} of {{frac|1|2|3}}, the {{sic}} word.",
     "As of June 8, 2013, as of 2010 and 1/3 of 1 2/3, the [sic] word."),
    ("Born {{birth date|1932|4|4}} ({{birth date|1932|04|04|df=y}}), opened {{start date|1990|5}}.",
     "Born April 4, 1932 (4 April 1932), opened May 1990."),
    ("Aboard {{USS|Hornet|CV-12|6}} at {{Coord|42|30|N|1|30|E|display=title}}a density of "
     "{{Pop density|3645257|640081.87|km2|sqmi|prec=1}}.", "Aboard USS Hornet at a density of 5.7/km²."),
])
def test_inline_templates_the_real_sample_uses_render_their_words(wikitext, paragraph):
    cleaned = clean_wikitext(wikitext)
    assert cleaned.paragraphs == [paragraph]
    assert cleaned.missing_words == []


@pytest.mark.parametrize("name, params, named, text", [
    ("convert", ["5", "mi", "km"], {"adj": "on"}, "5-mile"),
    ("cvt", ["25", "cm"], {}, "25 cm"),
    ("lang-sq", ["Pleqësi"], {}, "Albanian: Pleqësi"),
    ("lang-zz", ["Wort"], {}, TEMPLATE_GAP + "Wort"),
    ("ipa-ca", ["ənˈdorə"], {}, "[ənˈdorə]"),
    ("birth date and age", ["1932", "4", "4"], {}, f"April 4, 1932 (age {TEMPLATE_GAP})"),
    ("frac", ["1", "2", "3"], {}, "1 2/3"),
])
def test_a_renderer_is_a_pure_function_of_its_parameters(name, params, named, text):
    assert renders(name)
    assert render(name, params, named) == text


@pytest.mark.parametrize("name", ["cite web", "unknown template", "infobox person"])
def test_templates_without_a_renderer_are_left_to_the_cleaner(name):
    assert not renders(name)
