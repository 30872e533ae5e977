"""The bench's Flask-Admin site (bench/gate; issue #17): two models, Flask-Admin's stock ModelViews.

Only configuration: the list, create, edit and details pages come from Flask-Admin.
    python app.py seed     make the SQLite database under GATE_DATA with sample rows
    python app.py PORT     serve on 127.0.0.1:PORT
"""
import os
import sys
from pathlib import Path

from flask import Flask, redirect
from flask_admin import Admin
from flask_admin.contrib.sqla import ModelView
from flask_sqlalchemy import SQLAlchemy
from sqlalchemy.pool import NullPool

DATA = Path(os.environ.get("GATE_DATA", Path(__file__).resolve().parents[3] / ".apps" / "gate" / "data"))
app = Flask(__name__)
app.config["SQLALCHEMY_DATABASE_URI"] = f"sqlite:///{DATA / 'flaskadmin.sqlite3'}"
# No pooled connections: the bench restores the database file between cases.
app.config["SQLALCHEMY_ENGINE_OPTIONS"] = {"poolclass": NullPool}
app.config["SECRET_KEY"] = "bench-gate-local-only"
db = SQLAlchemy(app)


class Customer(db.Model):
    id = db.Column(db.Integer, primary_key=True)
    name = db.Column(db.String(80), nullable=False)
    email = db.Column(db.String(120), nullable=False)
    active = db.Column(db.Boolean, default=True)


class Ticket(db.Model):
    id = db.Column(db.Integer, primary_key=True)
    subject = db.Column(db.String(120), nullable=False)
    status = db.Column(db.String(20), default="open")
    customer_id = db.Column(db.Integer, db.ForeignKey("customer.id"))
    customer = db.relationship(Customer)


class CustomerView(ModelView):
    can_view_details = True
    column_searchable_list = ["name", "email"]
    column_filters = ["active", "name"]
    can_export = True


class TicketView(ModelView):
    column_filters = ["status"]
    column_searchable_list = ["subject"]


admin = Admin(app, name="Helpdesk")
admin.add_view(CustomerView(Customer, db))
admin.add_view(TicketView(Ticket, db))


@app.route("/")
def index():
    return redirect("/admin/")


def seed():
    DATA.mkdir(parents=True, exist_ok=True)
    with app.app_context():
        db.drop_all()
        db.create_all()
        people = [Customer(name=n, email=f"{n.lower()}@example.org") for n in ("Ada", "Grace", "Linus", "Ken")]
        db.session.add_all(people)
        db.session.add_all([Ticket(subject=s, customer=people[i % 4]) for i, s in
                            enumerate(["Printer on fire", "Password reset", "Invoice missing", "Slow wifi"])])
        db.session.commit()
    print("flaskadmin seeded")


if __name__ == "__main__":
    if sys.argv[1] == "seed":
        seed()
    else:
        app.run("127.0.0.1", int(sys.argv[1]), debug=False, use_reloader=False)
