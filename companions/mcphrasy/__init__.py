"""McPhraSy companion: multi-context retrieval for phrases and the phrase-clustering dataset (McPhraSy §3.1, §4)."""
