// Practice questions: tell the worker at once whether the choice was right, with the explanation.
document.querySelectorAll("section.practice").forEach(function (section) {
  var feedback = section.querySelector(".feedback");
  section.querySelectorAll("input[type=radio]").forEach(function (input) {
    input.addEventListener("change", function () {
      var right = input.value === section.dataset.answer;
      feedback.className = "feedback " + (right ? "correct" : "wrong");
      feedback.querySelector(".verdict").textContent = right ? "Correct. " : "Not quite. ";
      feedback.hidden = false;
    });
  });
});
