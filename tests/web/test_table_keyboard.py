"""A person plays Kabuki Tricks with the keyboard only,
as a screen-reader user would: Tab reaches "Your moves", arrow keys move between
its buttons, Enter plays a card, Space opens a composite action's dialog
(the Director or the Joker) whose labelled controls are changed with the
arrow keys and sent with "Confirm"; after each move and after the dialog
closes, focus comes back to "Your moves" instead of falling to the page's
top, and it is always visible."""

from __future__ import annotations

import time

from tests.web.conftest import sign_up, unique_name
from tests.web.test_table_play import new_table

# Where focus is, as a keyboard user would learn it from a screen reader.
FOCUS = """() => {
  const a = document.activeElement;
  if (!a || a === document.body || a === document.documentElement) return null;
  const style = getComputedStyle(a);
  return {
    name: a.getAttribute('aria-label') || (a.labels && a.labels[0] && a.labels[0].textContent) ||
      a.textContent.trim().slice(0, 40),
    tag: a.tagName, disabled: !!a.disabled,
    inMoves: !!a.closest('.your-moves'), inDialog: !!a.closest('dialog'),
    visible: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2,
  };
}"""

ENABLED_MOVES = (
    """() => [...document.querySelectorAll('.your-moves button:enabled')].map((b) => b.getAttribute('aria-label'))"""
)


def focus(page) -> dict | None:
    return page.evaluate(FOCUS)


def wait_for_turn(page, deadline: float) -> list[str]:
    """The labels of the enabled moves once there are some (bots move meanwhile)."""
    while True:
        assert time.monotonic() < deadline, "no turn came"
        enabled = page.evaluate(ENABLED_MOVES)
        if enabled or page.get_by_role("heading", name="Result").is_visible():
            return enabled
        page.wait_for_timeout(30)


def arrow_to(page, wanted) -> dict:
    """ArrowRight through "Your moves" until the focused button is `wanted`
    (a predicate on its name); it wraps, so a full lap finds any enabled one."""
    for _ in range(30):
        f = focus(page)
        if f and f["inMoves"] and not f["disabled"] and wanted(f["name"]):
            return f
        page.keyboard.press("ArrowRight")
    raise AssertionError(f"the arrow keys never reached it; focus on {focus(page)}")


def test_a_person_plays_with_the_keyboard_only_a_dialog_included(new_context):
    page = new_context(viewport={"width": 1100, "height": 900}).new_page()
    sign_up(page, unique_name("Kei"))
    new_table(page, "Kabuki Tricks", 3, ["random", "random"])
    page.get_by_role("heading", name="Kabuki Tricks").wait_for()
    deadline = time.monotonic() + 90
    wait_for_turn(page, deadline)

    # From the top of the page, Tab alone reaches "Your moves" (a skip link
    # first, the header's links, then the table), and the focus shows.
    page.evaluate("() => { document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0); }")
    for _press in range(1, 80):
        page.keyboard.press("Tab")
        f = focus(page)
        assert f is None or f["visible"], f"focus is not visible on {f}"
        if f and f["inMoves"]:
            break
    assert f and f["inMoves"], "Tab never reached Your moves"

    cards, dialogs = 0, 0
    while (cards < 3 or dialogs < 1) and not page.get_by_role("heading", name="Result").is_visible():
        enabled = wait_for_turn(page, deadline)
        # Focus came back to "Your moves" by itself: no Tab from the top again.
        f = focus(page)
        assert f and f["inMoves"] and f["visible"], f"after the last move focus is on {f}"
        composite = [n for n in enabled if n in ("Director", "Joker")]
        if "Deal" in enabled:
            arrow_to(page, lambda n: n == "Deal")
            page.keyboard.press("Enter")
        elif composite and dialogs == 0:
            name = composite[0]
            arrow_to(page, lambda n, name=name: n == name)
            page.keyboard.press("Space")
            dialog = page.get_by_role("dialog")
            dialog.wait_for()
            # Focus is in the dialog, on its first labelled control.
            f = focus(page)
            assert f["inDialog"] and f["tag"] == "SELECT" and f["visible"], f
            first_label = f["name"]
            assert first_label in ("High or Low", "Actor"), f
            before = dialog.locator("select").first.input_value()
            page.keyboard.press("ArrowDown")  # another choice, by keyboard alone
            after = dialog.locator("select").first.input_value()
            options = dialog.locator("select").first.locator("option").count()
            assert options == 1 or after != before, "the arrow key changed the control"
            # Tab through the labelled controls to Confirm (skipping it if this
            # combination is not allowed: then the first choice again).
            for _ in range(6):
                if focus(page)["name"] == "Confirm":
                    break
                page.keyboard.press("Tab")
            if focus(page)["name"] != "Confirm":
                page.keyboard.press("Shift+Tab")
            assert focus(page)["name"] == "Confirm", focus(page)
            page.keyboard.press("Enter")
            dialog.wait_for(state="detached")
            dialogs += 1
            line = "directed" if name == "Director" else "played the Joker"
            page.get_by_role("region", name="Move list").get_by_text(line).first.wait_for()
        else:
            arrow_to(page, lambda n: " of " in n)
            page.keyboard.press("Enter")
            cards += 1
        # While the move is under way and the bots answer, focus stays in
        # "Your moves" (never on the page's body).
        page.wait_for_timeout(50)
        f = focus(page)
        assert f and f["inMoves"], f"focus fell to {f} after the move"
    assert cards >= 3 and dialogs == 1, (cards, dialogs)
