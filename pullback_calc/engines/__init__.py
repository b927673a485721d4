"""Other AD systems as engines over the same terms (filled in below)."""
