"""Inline templates that render visible words ({{convert}}, {{lang-xx}}, {{IPA}}, dates, …): one pure function per
template of its positional and named parameters (already rendered to text), returning what the page shows."""
import re

TEMPLATE_GAP = "\ue002"  # placeholder where an inline template that renders words could not be rendered

SUPERSCRIPT_DIGITS = str.maketrans("0123456789+-−", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻")
IPA_LABELS = {"lang", "pron", "local", "us", "uk", "also", "uk also", "us also", "ipa"}


def _first(params, _named):
    return params[0] if params else ""


def _last(params, _named):
    return params[-1] if params else ""


def _joined(params, _named):
    return "".join(params)


def _ipa_en(params, _named):
    """{{IPAc-en|…}}: the phonemes between slashes ('_' is a space), without its US/UK/lang labels."""
    phonemes = [p for p in params if p.lower() not in IPA_LABELS]
    return "/" + "".join(phonemes).replace("_", " ") + "/" if phonemes else ""


def _ipa(params, _named):
    """{{IPA-xx|…}} and {{IPA|…}}: the transcription between brackets (unless it brings its own)."""
    if not params or not params[0]:
        return ""
    return params[0] if params[0].startswith(("[", "/")) else "[" + params[0] + "]"


def _exponent(value):
    return "×10" + value.translate(SUPERSCRIPT_DIGITS)


def _val(params, named):
    """{{val|number|uncertainty|e=exponent|u=unit}}."""
    if not params:
        return ""
    text = params[0]
    if len(params) > 1:
        text += params[1] if params[1].startswith("(") else "±" + params[1]
    if named.get("e"):
        text += _exponent(named["e"])
    unit = named.get("u") or named.get("ul") or ""
    return text + (" " + unit if unit else "")


def _nihongo(params, _named):
    """{{nihongo|English|kanji|romaji|extra}} → English (kanji, romaji, extra)."""
    english, rest = (params[0] if params else ""), [p for p in params[1:4] if p]
    if not english:
        return rest[-1] + " (" + ", ".join(rest[:-1]) + ")" if len(rest) > 1 else "".join(rest)
    return english + (" (" + ", ".join(rest) + ")" if rest else "")


def _coord(params, _named):
    """{{coord|d|m|s|N|d|m|s|W}} (or decimal degrees) → 13°19′N 169°9′W."""
    marks, out, part = ("°", "′", "″"), [], []
    for value in params:
        if value.upper() in {"N", "S", "E", "W"}:
            out.append("".join(v + m for v, m in zip(part, marks)) + value.upper())
            part = []
        elif re.fullmatch(r"-?[\d.]+", value):
            part.append(value)
    if part:
        out.append("°, ".join(part) + "°")
    return " ".join(out)


def _gauge(params, _named):
    """{{RailGauge|1435mm}} → 1435 mm."""
    return re.sub(r"^([\d.,]+)\s*([a-z]+)$", r"\1 \2", params[0]) if params else ""


# Language names `{{lang-xx|…}}` / `{{langx|xx|…}}` print before the text ("Albanian: Shqipëria"): the codes the
# 103-page sample uses and other common ones; an unknown code leaves the text with its name lost.
LANGUAGES = {
    "aln": "Gheg Albanian", "ar": "Arabic", "az": "Azerbaijani", "bg": "Bulgarian", "bn": "Bengali", "bs": "Bosnian",
    "ca": "Catalan", "cs": "Czech", "da": "Danish", "de": "German", "el": "Greek", "en": "English", "es": "Spanish",
    "fa": "Persian", "fi": "Finnish", "fr": "French", "ga": "Irish", "grc": "Ancient Greek", "he": "Hebrew",
    "hi": "Hindi", "hr": "Croatian", "hu": "Hungarian", "hy": "Armenian", "id": "Indonesian", "it": "Italian",
    "ja": "Japanese", "ka": "Georgian", "ko": "Korean", "la": "Latin", "lt": "Lithuanian", "lv": "Latvian",
    "mk": "Macedonian", "ml": "Malayalam", "mt": "Maltese", "nah": "Nahuatl", "nl": "Dutch", "no": "Norwegian",
    "pa": "Punjabi", "pl": "Polish", "pt": "Portuguese", "ro": "Romanian", "ru": "Russian", "rus": "Russian",
    "sa": "Sanskrit", "sk": "Slovak", "sl": "Slovene", "sq": "Albanian", "sr": "Serbian", "sv": "Swedish",
    "ta": "Tamil", "th": "Thai", "tr": "Turkish", "uk": "Ukrainian", "ur": "Urdu", "vi": "Vietnamese", "zh": "Chinese",
}


def _lang_named(code, params):
    """{{lang-xx|text}}: 'Language: text', or the text behind a lost-words gap for a code we cannot name."""
    text = params[0] if params else ""
    language = LANGUAGES.get(code.lower())
    return f"{language}: {text}" if language else TEMPLATE_GAP + text


# {{convert}} units: code → (symbol, singular name, plural name); the name is shown unless abbr=on, as Wikipedia
# does for the input unit. An unknown code is shown as written. Prefixes e3/e6/e9 (and k/M/G on oilbbl) scale.
UNITS = {
    "m": ("m", "metre", "metres"), "km": ("km", "kilometre", "kilometres"), "cm": ("cm", "centimetre", "centimetres"),
    "mm": ("mm", "millimetre", "millimetres"), "mi": ("mi", "mile", "miles"), "ft": ("ft", "foot", "feet"),
    "in": ("in", "inch", "inches"), "yd": ("yd", "yard", "yards"), "nmi": ("nmi", "nautical mile", "nautical miles"),
    "smi": ("mi", "mile", "miles"), "AU": ("AU", "astronomical unit", "astronomical units"),
    "km2": ("km²", "square kilometre", "square kilometres"), "m2": ("m²", "square metre", "square metres"),
    "sqmi": ("sq mi", "square mile", "square miles"), "sqft": ("sq ft", "square foot", "square feet"),
    "ha": ("ha", "hectare", "hectares"), "acre": ("acres", "acre", "acres"), "km3": ("km³", "cubic kilometre",
    "cubic kilometres"), "m3": ("m³", "cubic metre", "cubic metres"), "cuft": ("cu ft", "cubic foot", "cubic feet"),
    "kg": ("kg", "kilogram", "kilograms"), "g": ("g", "gram", "grams"), "lb": ("lb", "pound", "pounds"),
    "oz": ("oz", "ounce", "ounces"), "t": ("t", "tonne", "tonnes"), "LT": ("long tons", "long ton", "long tons"),
    "ST": ("short tons", "short ton", "short tons"), "MT": ("t", "tonne", "tonnes"), "carat": ("carats", "carat",
    "carats"), "L": ("L", "litre", "litres"), "l": ("l", "litre", "litres"), "USgal": ("US gal", "US gallon",
    "US gallons"), "oilbbl": ("bbl", "barrel", "barrels"), "km/h": ("km/h", "kilometre per hour",
    "kilometres per hour"), "mph": ("mph", "mile per hour", "miles per hour"), "m/s": ("m/s", "metre per second",
    "metres per second"), "ft/s": ("ft/s", "foot per second", "feet per second"), "kn": ("kn", "knot", "knots"),
    "PD/sqmi": ("/sq mi", "per square mile", "per square mile"), "PD/km2": ("/km²", "per square kilometre",
    "per square kilometre"), "C": ("°C", "°C", "°C"), "F": ("°F", "°F", "°F"), "K": ("K", "kelvin", "kelvins"),
    "°C": ("°C", "°C", "°C"), "°F": ("°F", "°F", "°F"), "C-change": ("°C", "°C", "°C"),
    "F-change": ("°F", "°F", "°F"), "fathom": ("fathoms", "fathom", "fathoms"),
}
UNIT_SCALES = {"e3": "thousand", "e6": "million", "e9": "billion", "e12": "trillion", "k": "thousand",
               "M": "million", "G": "billion", "T": "trillion"}
# Words between the values of a range: {{convert|25|by|36|cm}} → "25 by 36 cm"; "-" renders as an en dash.
CONVERT_RANGES = {"-": "–", "–": "–", "to": " to ", "to(-)": " to ", "and": " and ", "and(-)": " and ",
                  "or": " or ", "by": " by ", "x": " × ", "×": " × ", "+/-": " ± ", "+": " + "}
CONVERT_NUMBER = re.compile(r"[-−]?[\d,]*\.?\d+(?:e-?\d+)?")


def _unit(code, plural, named):
    """How {{convert}} shows its input unit: scale word, then symbol (abbr=on) or name; a code we do not know as
    written."""
    scale, base = "", code
    per_day = code.endswith("/d") and code not in UNITS
    if per_day:
        base = code[:-2]
    scaled = re.fullmatch(r"(e\d+|[kMGT])(.+)", base)
    if base not in UNITS and scaled and scaled.group(2) in UNITS:
        scale, base = UNIT_SCALES.get(scaled.group(1), "") + " ", scaled.group(2)
    entry = UNITS.get(base)
    if entry is None:
        return code
    symbol, singular, plural_name = entry
    abbreviated = named.get("abbr", "").strip() in {"on", "values"}
    name = symbol if abbreviated else (plural_name if plural else singular)
    if named.get("sp", "").strip() == "us":
        name = name.replace("metre", "meter").replace("litre", "liter")
    return scale + name + ("/d" if per_day and abbreviated else " per day" if per_day else "")


def _number(value):
    """A {{convert}} value as Wikipedia prints it: thousands separated, a leading minus as '−'."""
    value = value.replace("−", "-").strip()
    sign, digits = ("−", value[1:]) if value.startswith("-") else ("", value)
    whole, dot, fraction = digits.replace(",", "").partition(".")
    if whole.isdigit() and len(whole) > 4:
        whole = f"{int(whole):,}"
    return sign + whole + dot + fraction


def _convert(params, named):
    """{{convert|25|by|36|cm|…}} → '25 by 36 cm' (or 'centimetres'): the value(s) and input unit as written,
    without the converted value."""
    values, rest = [], list(params)
    while rest and CONVERT_NUMBER.fullmatch(rest[0].replace("−", "-")):
        values.append(_number(rest.pop(0)))
        if len(rest) > 1 and rest[0] in CONVERT_RANGES and CONVERT_NUMBER.fullmatch(rest[1].replace("−", "-")):
            values.append(CONVERT_RANGES[rest.pop(0)])
            continue
        break
    if not values or not rest:
        return TEMPLATE_GAP
    unit = _unit(rest[0], plural=values[-1].strip() not in {"1", "−1"}, named=named)
    if named.get("adj", "").strip() == "on" and named.get("abbr", "").strip() not in {"on", "values"}:
        return "".join(values) + "-" + _unit(rest[0], plural=False, named=named)
    return "".join(values) + ("" if unit.startswith("/") else " ") + unit


def _as_of(params, named):
    """{{as of|2013|June|8}} → 'As of June 8, 2013' ('as of' with lc=y)."""
    year, month, day = (params + ["", "", ""])[:3]
    if month.isdigit():
        month = MONTHS[int(month) - 1] if 1 <= int(month) <= 12 else month
    date = f"{month} {day}, {year}" if month and day else f"{month} {year}" if month else year
    return ("as of " if named.get("lc", "").strip() in {"y", "yes", "on"} else "As of ") + date.strip()


MONTHS = "January February March April May June July August September October November December".split()


def _date(params, named):
    """{{birth date|1932|4|4}}, {{start date|…}}, {{dts|…}} → 'April 4, 1932' ('4 April 1932' with df=y)."""
    numbers = [p for p in params if p.lstrip("-").isdigit()][:3]
    if not numbers:
        return TEMPLATE_GAP
    year, month, day = (numbers + ["", ""])[:3]
    month = MONTHS[int(month) - 1] if month and 1 <= int(month) <= 12 else ""
    day = str(int(day)) if day else ""
    if named.get("df", "").strip() in {"y", "yes"}:
        return " ".join(part for part in (day, month, year) if part)
    return f"{month} {day}, {year}" if day else f"{month} {year}".strip()


def _date_and_age(params, named):
    """{{birth date and age|…}}: the date, then an age that depends on today's date (its words lost)."""
    return _date(params, named) + f" (age {TEMPLATE_GAP})"


def _frac(params, _named):
    """{{frac|a|b|c}} → 'a b/c', {{frac|b|c}} → 'b/c', {{frac|c}} → '1/c'."""
    if len(params) >= 3:
        return f"{params[0]} {params[1]}/{params[2]}"
    return "/".join(params) if len(params) == 2 else "1/" + params[0] if params else ""


def _ship(prefix):
    """{{USS|Hornet|CV-12|6}} → 'USS Hornet (CV-12)'; the third parameter picks parts as {{ship}} does."""
    def render(params, _named):
        name, hull, form = (params + ["", "", ""])[:3]
        with_hull = f"{name} ({hull})" if hull else name
        return {"1": f"{prefix} {name}", "2": name, "3": with_hull, "4": hull, "5": f"{prefix} {hull}",
                "6": f"{prefix} {name}"}.get(form, f"{prefix} {with_hull}")
    return render


def _pop_density(params, named):
    """{{pop density|people|area|km2}} → '5.7/km²' (rounded to prec=, default 0 decimals)."""
    try:
        density = float(params[0].replace(",", "")) / float(params[1].replace(",", ""))
        places = int(named.get("prec", "0") or 0)
    except (IndexError, ValueError, ZeroDivisionError):
        return TEMPLATE_GAP
    unit = params[2] if len(params) > 2 else "km2"
    return f"{density:,.{places}f}" + UNITS.get("PD/" + unit, ("/" + unit,))[0]


def _coord_inline(params, named):
    """{{coord}} as shown in the text; with display=title it shows only beside the page title."""
    return "" if named.get("display", "").strip() == "title" else _coord(params, named)


# Inline templates that render visible words: name → function(positional params, named params) -> text.
# The list follows what the article prose of the 103-page enwiki sample uses (bench/inline_templates.py counts it).
RENDERED_TEMPLATES = {
    "nowrap": _first, "nobr": _first, "small": _first, "smaller": _first, "big": _first, "em": _first,
    "abbr": _first, "visible anchor": _first, "vanchor": _first, "ill": _first, "interlanguage link": _first,
    "lang": _last, "transl": _last, "nq": _first, "linktext": _joined, "ipa": _ipa, "ipac-en": _ipa_en,
    "ipaslink": _ipa, "respell": lambda p, _: "-".join(p), "convert": _convert,
    "cvt": lambda p, named: _convert(p, dict(named, abbr="on")), "nbsp": lambda p, _: " ", "thinsp": lambda p, _: " ",
    "spaces": lambda p, _: " ", "snd": lambda p, _: " – ", "ndash": lambda p, _: "–",
    "mdash": lambda p, _: "—", "spaced ndash": lambda p, _: " – ", "'": lambda p, _: "'",
    "'s": lambda p, _: "'s", "!": lambda p, _: "|", "eqm": lambda p, _: "⇌",
    "sortname": lambda p, _: " ".join(p[:2]), "as of": _as_of, "frac": _frac, "sfrac": _frac,
    "math": _first, "mvar": _first, "var": _first, "not a typo": _first, "sic": lambda p, _: " ".join(p[:1] + ["[sic]"]),
    "chem": _joined, "chem2": _joined, "chemical formula": _joined, "sub": _first, "sup": _first,
    "carbon": lambda p, _: "C", "hydrogen": lambda p, _: "H", "oxygen": lambda p, _: "O",
    "nitrogen": lambda p, _: "N", "val": _val, "e": lambda p, _: _exponent(p[0]) if p else "",
    "nihongo": _nihongo, "coord": _coord_inline, "langx": lambda p, _: _lang_named(_first(p, _), p[1:]),
    "uss": _ship("USS"), "hms": _ship("HMS"), "pop density": _pop_density,
    "epc rule": lambda p, _: f"Rule {_first(p, _)} EPC", "epc 1973 rule": lambda p, _: f"Rule {_first(p, _)} EPC 1973",
    "epc article": lambda p, _: f"Article {_first(p, _)} EPC", "script/arabic": _first,
    "birth date": _date, "death date": _date, "start date": _date, "end date": _date, "dts": _date,
    "birth date and age": _date_and_age, "death date and age": _date, "birth-date": _date, "railgauge": _gauge, "us patent": lambda p, _: "U.S. Patent " + _first(p, _),
    "angbr": lambda p, _: "⟨" + _first(p, _) + "⟩", "circa": lambda p, _: "c. " + _first(p, _),
    "c.": lambda p, _: "c. " + _first(p, _), "us$": lambda p, _: "US$" + _first(p, _),
    "usd": lambda p, _: "US$" + _first(p, _), "gbp": lambda p, _: "£" + _first(p, _),
    "£": lambda p, _: "£" + _first(p, _), "€": lambda p, _: "€" + _first(p, _),
    "inr": lambda p, _: "₹" + _first(p, _),
}


def renders(name):
    """Whether template `name` (lower case, spaces for underscores) is one whose words are rendered here."""
    return name in RENDERED_TEMPLATES or name.startswith(("lang-", "lang ", "ipa-"))


def render(name, params, named):
    """The text template `name` shows, from its positional `params` and `named` parameters (TEMPLATE_GAP where a
    part of it cannot be given, such as an unknown language's name)."""
    if name in RENDERED_TEMPLATES:
        return RENDERED_TEMPLATES[name](params, named)
    if name.startswith("ipa-"):
        return _ipa(params, named)
    return _lang_named(name.split("-", 1)[1] if "-" in name else "", params)
