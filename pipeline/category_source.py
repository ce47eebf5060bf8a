"""Where `--categories-from-api` reads page categories: the MediaWiki API's default address and answer cache (light:
the stage declarations and the Beam stage that fetches both read them)."""
CATEGORIES_API_URL = "https://en.wikipedia.org/w/api.php"
CATEGORIES_CACHE_DIR = "~/.cache/picforge/categories"  # expanded on each worker
