"""File confinement: where the file tools may act, with whose rights, and the paths protected by where they are."""
