"""Mining: Wikipedia pages-articles dump → annotation triplets, as Beam stages."""
