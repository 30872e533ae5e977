"""Sample data: an editor (superuser), a second user, pages (live and draft), an image, a redirect."""
import io

from django.contrib.auth.models import User
from django.core.files.images import ImageFile
from home.models import HomePage
from PIL import Image as PILImage
from wagtail.contrib.redirects.models import Redirect
from wagtail.images.models import Image
from wagtail.models import Page, Site

User.objects.create_superuser("editor", "editor@example.org", "bench-pass-1", first_name="Eda", last_name="Tor")
User.objects.create_user("writer", "writer@example.org", "bench-pass-1")
home = HomePage.objects.first()
for title, slug in [("About us", "about"), ("News", "news"), ("Events", "events")]:
    home.add_child(instance=HomePage(title=title, slug=slug))
draft = home.add_child(instance=HomePage(title="Spring sale draft", slug="spring-sale", live=False))
draft.save_revision()
buf = io.BytesIO()
PILImage.new("RGB", (64, 48), (40, 120, 200)).save(buf, "PNG")
Image.objects.create(title="Blue square", file=ImageFile(buf, name="blue.png"))
Redirect.objects.create(old_path="/old-news", site=Site.objects.first(), redirect_page=Page.objects.get(slug="news"))
print("cms seeded", [p.id for p in Page.objects.all()])
