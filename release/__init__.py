"""Build, describe, publish and sanity-check the PiC release (PS, PR-pass, PR-page, PSD)."""
