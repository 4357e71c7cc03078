"""Pure note handling: strings in, objects out. No IO here."""
