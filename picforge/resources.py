"""Word lists shipped with picforge and the WiC word list read from the official package."""
import functools
import io
import zipfile
import zlib
from importlib import resources

from picforge.bounded_read import read_bounded, read_member
from picforge.errors import InputError

WIC_SPLITS = ("train/train.data.txt", "dev/dev.data.txt", "test/test.data.txt")
MAX_WIC_ZIP_BYTES = 16 * 2**20  # the official WiC_dataset.zip is 276 KB
MAX_WIC_MEMBER_BYTES = 16 * 2**20  # its largest data file (train) unpacks to 504 KB
WIC_FIX = "pass the official WiC_dataset.zip (re-download it if it was edited)"


def _word_list(name):
    text = resources.files("picforge").joinpath("data", name).read_text(encoding="utf-8")
    return [w for line in text.splitlines() if not line.startswith("#") for w in line.split()]


@functools.lru_cache(maxsize=None)
def stopwords():
    """NLTK's 179 English stopwords (shipped, not downloaded)."""
    return frozenset(_word_list("stopwords_en.txt"))


@functools.lru_cache(maxsize=None)
def cut_words():
    """Function words no whole English sentence ends on (shipped list, lower-case)."""
    return frozenset(_word_list("cut_words_en.txt"))


@functools.lru_cache(maxsize=None)
def abbreviations():
    """Abbreviations Punkt must not split on, lower-case, without their final period."""
    return frozenset(_word_list("abbreviations.txt"))


def _member_text(path, archive, member):
    """A zip member's UTF-8 text, or an InputError naming the damage (bad CRC, broken data, not UTF-8)."""
    try:
        return read_member(path, archive, member, MAX_WIC_MEMBER_BYTES, WIC_FIX).decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(f"{path}:{member}: byte {err.start} is not UTF-8; {WIC_FIX}") from None
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError) as err:
        raise InputError(f"{path}:{member}: damaged inside the zip ({err}); re-download the official "
                         "WiC_dataset.zip") from None


def read_wic_words(path):
    """The unique target words (column 1) of the official WiC zip's train/dev/test data files."""
    data = read_bounded(path, MAX_WIC_ZIP_BYTES, fix=WIC_FIX)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError) as err:
        raise InputError(f"{path}: not a readable zip ({err}); pass the official WiC_dataset.zip") from err
    names = {n.split("/", 1)[-1] if n.count("/") > 1 else n: n for n in archive.namelist()}
    words = set()
    for split in WIC_SPLITS:
        member = names.get(split)
        if member is None:
            raise InputError(
                f"{path}: missing {split}; expected the official WiC layout "
                f"({', '.join(WIC_SPLITS)}), found {sorted(archive.namelist())[:6]}"
            )
        for line_no, line in enumerate(_member_text(path, archive, member).splitlines(), 1):
            fields = line.split("\t")
            if len(fields) != 5 or not fields[0].strip():
                raise InputError(
                    f"{path}:{member} line {line_no}: expected 5 tab-separated fields "
                    "(word, POS, indices, sentence1, sentence2); is this the official WiC package?"
                )
            words.add(fields[0].strip().lower())
    return sorted(words)
