// The web table's only script: comfort, not function (every page works without it).
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  // New game: show only the opponent choices the player count uses.
  const players = document.getElementById("players");
  if (players) {
    const update = () => {
      const count = Number(players.value);
      document.querySelectorAll(".opponent").forEach((label) => {
        label.classList.toggle("unused", Number(label.dataset.index) >= count);
      });
    };
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
