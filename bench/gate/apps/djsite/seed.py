"""Sample data: a superuser, two more users, books, loans and messages between them."""
import datetime

from django.contrib.auth.models import User
from django.utils import timezone
from library.models import Author, Book, Loan
from postman.models import STATUS_ACCEPTED, Message

admin = User.objects.create_superuser("admin", "admin@example.org", "bench-pass-1")
alice = User.objects.create_user("alice", "alice@example.org", "bench-pass-1", is_staff=True)
bob = User.objects.create_user("bob", "bob@example.org", "bench-pass-1", is_staff=True)
authors = [Author.objects.create(name=n, born=b) for n, b in
           [("Mary Shelley", 1797), ("Walt Whitman", 1819), ("Michel de Montaigne", 1533)]]
books = [("Frankenstein", 0, 1818, "novel"), ("The Last Man", 0, 1826, "novel"),
         ("Leaves of Grass", 1, 1855, "poetry"), ("Drum-Taps", 1, 1865, "poetry"),
         ("Essays", 2, 1580, "essay"), ("Of Cannibals", 2, 1580, "essay")]
for title, a, year, genre in books:
    b = Book.objects.create(title=title, author=authors[a], year=year, genre=genre)
    Loan.objects.create(book=b, borrower="Reader %d" % b.id, due=datetime.date(2026, 12, b.id))
now = timezone.now()
for i, (s, r, subj) in enumerate([(alice, admin, "Shelf inventory"), (bob, admin, "Late returns"),
                                  (admin, alice, "Re: opening hours"), (alice, admin, "Book club")]):
    Message.objects.create(sender=s, recipient=r, subject=subj, body="Hello, about %s." % subj.lower(),
                           moderation_status=STATUS_ACCEPTED, sent_at=now - datetime.timedelta(hours=i))
print("djsite seeded")
