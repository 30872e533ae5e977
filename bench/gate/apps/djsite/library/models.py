from django.db import models


class Author(models.Model):
    name = models.CharField(max_length=100)
    born = models.IntegerField(null=True, blank=True)

    def __str__(self):
        return self.name


class Book(models.Model):
    title = models.CharField(max_length=200)
    author = models.ForeignKey(Author, on_delete=models.CASCADE)
    year = models.IntegerField()
    genre = models.CharField(max_length=20, choices=[("novel", "Novel"), ("poetry", "Poetry"), ("essay", "Essay")])
    in_print = models.BooleanField(default=True)

    def __str__(self):
        return self.title


class Loan(models.Model):
    book = models.ForeignKey(Book, on_delete=models.CASCADE)
    borrower = models.CharField(max_length=100)
    due = models.DateField()

    def __str__(self):
        return f"{self.book} to {self.borrower}"
