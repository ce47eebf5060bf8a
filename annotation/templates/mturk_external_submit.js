// What MTurk's externalHIT script does: post the form back to turkSubmitTo with the assignment id,
// and keep the submit button disabled while the worker only previews the HIT.
(function () {
  var params = new URLSearchParams(window.location.search);
  var assignment = params.get("assignmentId") || "";
  var form = document.getElementById("mturk_form");
  var submit = document.getElementById("submitButton");
  document.getElementById("assignmentId").value = assignment;
  var submitTo = params.get("turkSubmitTo");
  if (submitTo) {
    form.action = submitTo.replace(/\/+$/, "") + "/mturk/externalSubmit";
  }
  if (!assignment || assignment === "ASSIGNMENT_ID_NOT_AVAILABLE") {
    submit.disabled = true;
    submit.value = "Accept the HIT to answer";
  }
})();
