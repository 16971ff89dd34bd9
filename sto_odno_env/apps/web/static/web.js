// The web table's only script: comfort, not function (every page works without it; the
// server refuses what the script would have greyed out, with the reason).
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  // New game: offer only the player counts of the rule set, the seats and opponent choices
  // the player count uses, and the agents that can sit at the chosen table.
  const form = document.getElementById("new-game");
  if (form) {
    const rules = document.getElementById("rules");
    const players = document.getElementById("players");
    const seat = document.getElementById("seat");
    const unfit = document.getElementById("unfit");
    // data-tables: {"classic": [2, 3, 4, 5, 6]}: the rule sets and counts a policy serves
    const tablesOf = (option) => JSON.parse(option.dataset.tables);
    const update = () => {
      const [low, high] = rules.selectedOptions[0].dataset.players.split("-").map(Number);
      Array.from(players.options).forEach((option) => {
        option.disabled = Number(option.value) < low || Number(option.value) > high;
      });
      if (players.selectedOptions[0].disabled) players.value = String(low);
      const count = Number(players.value);
      Array.from(seat.options).forEach((option) => {
        option.disabled = option.hidden = Number(option.value) >= count;
      });
      if (Number(seat.value) >= count) seat.value = "0";
      document.querySelectorAll(".opponent").forEach((label) => {
        label.classList.toggle("unused", Number(label.dataset.index) >= count);
      });
      const refused = new Set();
      document.querySelectorAll("select.agent-choice").forEach((select) => {
        select.querySelectorAll("option[data-tables]").forEach((option) => {
          const counts = tablesOf(option)[rules.value] || [];
          option.disabled = !counts.includes(count);
          if (option.disabled) refused.add(option.value);
        });
        if (select.selectedOptions[0] && select.selectedOptions[0].disabled) select.value = "expert";
      });
      unfit.hidden = refused.size === 0;
      unfit.textContent = refused.size === 0 ? "" :
        `Greyed out, as they do not play ${rules.value} with ${count} players: ` +
        `${Array.from(refused).join(", ")} (each label says what it plays).`;
    };
    rules.addEventListener("change", update);
    players.addEventListener("change", update);
    update();
  }
  // A move is sent once: a second click would only be refused as a stale move.
  const moves = document.getElementById("moves");
  if (moves) {
    moves.addEventListener("submit", () => {
      setTimeout(() => moves.querySelectorAll("button").forEach((b) => { b.disabled = true; }), 0);
    });
  }
  // Replays: the arrow keys step back and forward.
  const replay = document.getElementById("replay");
  if (replay) {
    document.addEventListener("keydown", (event) => {
      const link = { ArrowLeft: "back", ArrowRight: "next" }[event.key];
      const target = link && document.getElementById(link);
      if (target && !target.classList.contains("disabled")) target.click();
    });
  }
});
