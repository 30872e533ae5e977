"""Sample database for the bench's Datasette (bench/gate; issue #17): a library catalogue, full-text searchable."""
import os
import sqlite3
import sys
from pathlib import Path

path = Path(sys.argv[1] if len(sys.argv) > 1 else Path(os.environ["GATE_DATA"]) / "catalog.db")
path.unlink(missing_ok=True)
db = sqlite3.connect(path)
db.executescript("""
create table authors (id integer primary key, name text, country text);
create table books (id integer primary key, title text, author_id integer references authors(id),
                    year integer, genre text, pages integer);
""")
authors = [(1, "Mary Shelley", "UK"), (2, "Walt Whitman", "US"), (3, "Montaigne", "FR"), (4, "Toni Morrison", "US")]
db.executemany("insert into authors values (?, ?, ?)", authors)
books = [("Frankenstein", 1, 1818, "novel", 280), ("The Last Man", 1, 1826, "novel", 479),
         ("Leaves of Grass", 2, 1855, "poetry", 95), ("Drum-Taps", 2, 1865, "poetry", 72),
         ("Essays", 3, 1580, "essay", 1200), ("Beloved", 4, 1987, "novel", 324),
         ("Sula", 4, 1973, "novel", 174), ("Jazz", 4, 1992, "novel", 229)]
db.executemany("insert into books (title, author_id, year, genre, pages) values (?, ?, ?, ?, ?)", books)
db.execute("create virtual table books_fts using fts5(title, content='books', content_rowid='id')")
db.execute("insert into books_fts(rowid, title) select id, title from books")
db.commit()
print("datasette seeded", path)
