"""Companion datasets built on picforge's shared machinery."""
