"""In a real browser (Debian's chromium): sign in, upload a bot, challenge, and open the replay."""

import pytest

from platform_helpers import EXAMPLE_BOT

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def carol(django_user_model):
    # Created before the browser starts: its event loop forbids database calls in this thread.
    return django_user_model.objects.create_user("carol", password="carol-browser-pass")


def test_sign_in_upload_challenge_and_open_the_replay(live_server, live_worker, carol, tmp_path, browser_page):
    bot_file = tmp_path / "carol.py"
    bot_file.write_bytes(EXAMPLE_BOT)
    page = browser_page

    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", "carol")
    page.fill("input[name=password]", "carol-browser-pass")
    page.click("button[type=submit]")
    page.wait_for_selector("text=Your bots")

    page.fill("input[name=name]", "browser-bot")
    page.select_option("select[name=game]", "endgame")
    page.click("text=Create bot")
    page.set_input_files("input[type=file]", str(bot_file))
    page.click("button:has-text('Upload')")
    page.wait_for_selector("text=validation is running")
    # The page polls the API and reloads itself once validation has decided.
    page.wait_for_selector("#versions td.status:has-text('accepted (active)')")

    page.select_option("select[name=opponents]", label="builtin:greedy")
    page.click("button:has-text('Challenge')")
    page.wait_for_selector("#status:has-text('finished')")
    page.click("text=Watch the replay")

    page.wait_for_selector("#board .cell")
    assert page.inner_text("#position").startswith("step 0 /")
    page.click("#next")
    assert page.inner_text("#position").startswith("step 1 /")
    current = page.locator("#moves tr.current td")
    assert "takes" in current.nth(1).inner_text()
    assert current.nth(4).inner_text().isdigit()  # points lost by that move
    assert page.locator("#board .cell.taken").count() == 1
    page.click("#last")
    assert page.locator("#board .cell.taken").count() == page.locator("#board .cell").count()
    assert page.locator("#points-lost tbody tr").count() == 2
