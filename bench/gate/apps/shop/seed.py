"""Sample data: a customer with an address, a staff user, a country, products in stock."""
from decimal import Decimal

from django.contrib.auth.models import User
from django.contrib.sites.models import Site
from oscar.core.loading import get_model

Country = get_model("address", "Country")
UserAddress = get_model("address", "UserAddress")
ProductClass = get_model("catalogue", "ProductClass")
Product = get_model("catalogue", "Product")
Category = get_model("catalogue", "Category")
ProductCategory = get_model("catalogue", "ProductCategory")
Partner = get_model("partner", "Partner")
StockRecord = get_model("partner", "StockRecord")

Site.objects.update_or_create(id=1, defaults={"domain": "127.0.0.1:8102", "name": "Bench shop"})
gb = Country.objects.create(iso_3166_1_a2="GB", iso_3166_1_a3="GBR", iso_3166_1_numeric="826",
                            printable_name="United Kingdom", name="United Kingdom of Great Britain",
                            is_shipping_country=True)
Country.objects.create(iso_3166_1_a2="FR", iso_3166_1_a3="FRA", iso_3166_1_numeric="250",
                       printable_name="France", name="French Republic", is_shipping_country=True)
User.objects.create_superuser("staff", "staff@example.org", "bench-pass-1")
cust = User.objects.create_user("carol", "carol@example.org", "bench-pass-1", first_name="Carol", last_name="Reed")
UserAddress.objects.create(user=cust, first_name="Carol", last_name="Reed", line1="1 High Street",
                           line4="London", postcode="N1 9GU", country=gb, is_default_for_shipping=True)
books = ProductClass.objects.create(name="Book", requires_shipping=True, track_stock=True)
cat = Category.add_root(name="Books")
partner = Partner.objects.create(name="Bench Books")
for i, (title, price) in enumerate([("The Hobbit", "12.50"), ("Dune", "9.99"), ("Emma", "7.00"),
                                    ("Ulysses", "15.00")], 1):
    p = Product.objects.create(title=title, product_class=books, upc="UPC%03d" % i,
                               description="A fine copy of %s." % title)
    ProductCategory.objects.create(product=p, category=cat)
    StockRecord.objects.create(product=p, partner=partner, partner_sku="SKU%03d" % i,
                               price=Decimal(price), num_in_stock=50)
print("shop seeded")
