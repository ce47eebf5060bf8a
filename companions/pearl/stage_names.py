"""The names of PEARL's stages, in a module that imports nothing, so the declarations and the code writing them
name them alike without importing each other."""
PHRASES = "pearl-phrases"
PARAPHRASES = "pearl-paraphrases"
