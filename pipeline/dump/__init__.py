"""Reading Wikipedia pages-articles dumps: the download, files and multistream parts, bz2/gzip streams, <page>
elements and the article record."""
