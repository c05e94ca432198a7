// The Play page: choosing another game shows its seats at once (without scripts, the Choose button does it).
document.addEventListener("DOMContentLoaded", () => {
  const choice = document.getElementById("game-choice");
  document.getElementById("choose-game").hidden = true;
  choice.addEventListener("change", () => choice.form.submit());
});
