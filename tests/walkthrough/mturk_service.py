"""An MTurk sandbox in the process: a real boto3 client whose requests (serialized by botocore in MTurk's JSON
1.1 wire format) are answered by `SandboxMTurk` instead of the network, and whose responses botocore parses."""
import itertools
import json
import time

from botocore.awsrequest import AWSResponse

SANDBOX_HOST = "mturk-requester-sandbox.us-east-1.amazonaws.com"
LIVE_HOST = "mturk-requester.us-east-1.amazonaws.com"


class _Raw:
    """The urllib3-like body botocore reads a response from."""

    def __init__(self, body):
        self._body = body

    def stream(self, **_):
        yield self._body


class SandboxMTurk:
    """HITs, assignments and qualification types of one requester on the sandbox; `worker(token, hit_number)`
    returns the posted form fields of each worker who takes a HIT: [(worker_id, {field: value})]."""

    def __init__(self, worker, live=False):
        self.worker, self.host = worker, LIVE_HOST if live else SANDBOX_HOST
        self.balance = "10000.00"   # the account's AvailableBalance
        self.hits, self.assignments, self.qualification_types, self.hit_types = {}, {}, {}, {}
        self.blocks = {}    # worker id -> reason: a blocked worker takes none of the requester's HITs
        self.unseen = []    # HITs created (or given more assignments) but not yet taken by the workers
        self.tokens = set()   # UniqueRequestTokens of CreateAdditionalAssignmentsForHIT seen
        self.calls = []
        self._ids = itertools.count(1)

    def attach(self, client):
        """Answer `client`'s requests from this sandbox; refuses any that would leave for another endpoint."""
        client.meta.events.register("before-send.mturk", self._send)
        return client

    def _send(self, request, **_):
        assert self.host in request.url, f"request for {request.url} would leave the {self.host} stand-in"
        operation = request.headers["X-Amz-Target"].decode().rsplit(".", 1)[1]
        params = json.loads(request.body or b"{}")
        self.calls.append((operation, params))
        self._workers_arrive()
        status, payload = 200, getattr(self, operation)(params)
        if "__type" in payload:
            status = 400
        return AWSResponse(request.url, status, {"Content-Type": "application/x-amz-json-1.1"},
                           _Raw(json.dumps(payload).encode()))

    def _id(self, prefix):
        return f"{prefix}{next(self._ids):0{30 - len(prefix)}d}"

    def GetAccountBalance(self, params):
        return {"AvailableBalance": self.balance}

    def ListQualificationTypes(self, params):
        found = [q for q in self.qualification_types.values() if q["Name"] == params.get("Query")]
        return {"NumResults": len(found), "QualificationTypes": found}

    def CreateQualificationType(self, params):
        qualification = {"QualificationTypeId": self._id("3QT"), "Name": params["Name"],
                         "QualificationTypeStatus": "Active", "CreationTime": time.time()}
        self.qualification_types[qualification["QualificationTypeId"]] = qualification
        return {"QualificationType": qualification}

    def CreateHITType(self, params):
        """As MTurk: registering a HIT type with the values of an existing one returns that type's id."""
        same = next((type_id for type_id, known in self.hit_types.items() if known == params), None)
        if same:
            return {"HITTypeId": same}
        hit_type_id = self._id("3HT")
        self.hit_types[hit_type_id] = params
        return {"HITTypeId": hit_type_id}

    def CreateHITWithHITType(self, params):
        for hit in self.hits.values():
            if hit["RequesterAnnotation"] == params["UniqueRequestToken"]:
                return {"__type": "ServiceFault", "Message": f"The HIT with ID \"{hit['HITId']}\" already exists.",
                        "TurkErrorCode": "AWS.MechanicalTurk.HitAlreadyExists"}
        hit = {"HITId": self._id("3HIT"), "HITTypeId": params["HITTypeId"], "HITGroupId": "3GRP",
               "HITStatus": "Assignable", "RequesterAnnotation": params["RequesterAnnotation"],
               "MaxAssignments": params["MaxAssignments"], "CreationTime": time.time(),
               "Expiration": time.time() + params["LifetimeInSeconds"],
               "AutoApprovalDelayInSeconds": self.hit_types[params["HITTypeId"]]["AutoApprovalDelayInSeconds"],
               "NumberOfAssignmentsAvailable": params["MaxAssignments"], "NumberOfAssignmentsPending": 0,
               "NumberOfAssignmentsCompleted": 0}
        self.hits[hit["HITId"]] = hit
        self.unseen.append((hit, len(self.hits)))
        return {"HIT": dict(hit)}

    def _workers_arrive(self):
        """The sandbox's workers take every new HIT before the requester's next request (the created HIT is
        recorded by then, so the scripted workers can read its plan) and submit their forms."""
        waiting, self.unseen = self.unseen, []
        for hit, number in waiting:     # nobody can take a HIT past its Expiration: it waits to be extended
            if hit["Expiration"] > time.time():
                self._work(hit, number)
            else:
                self.unseen.append((hit, number))

    def _work(self, hit, number):
        """One HIT's workers submit their forms (a worker takes a HIT once, a blocked worker never; as many as it
        has assignments left)."""
        done = {a["WorkerId"] for a in self.assignments.values() if a["HITId"] == hit["HITId"]} | set(self.blocks)
        arriving = [(w, f) for w, f in self.worker(hit["RequesterAnnotation"], number) if w not in done]
        for worker_id, fields in arriving[:hit["NumberOfAssignmentsAvailable"]]:
            answer = "".join(f"<Answer><QuestionIdentifier>{name}</QuestionIdentifier><FreeText>{value}</FreeText>"
                             "</Answer>" for name, value in fields.items())
            assignment = {"AssignmentId": self._id("3AS"), "WorkerId": worker_id, "HITId": hit["HITId"],
                          "AssignmentStatus": "Submitted", "SubmitTime": time.time(), "AcceptTime": time.time(),
                          "AutoApprovalTime": time.time() + hit["AutoApprovalDelayInSeconds"],
                          "Answer": '<QuestionFormAnswers xmlns="http://mechanicalturk.amazonaws.com/'
                                    'AWSMechanicalTurkDataSchemas/2005-10-01/QuestionFormAnswers.xsd">'
                                    f"{answer}</QuestionFormAnswers>"}
            self.assignments[assignment["AssignmentId"]] = assignment
            hit["NumberOfAssignmentsAvailable"] -= 1
            hit["NumberOfAssignmentsCompleted"] += 1
        if not hit["NumberOfAssignmentsAvailable"]:
            hit["HITStatus"] = "Reviewable"

    def CreateAdditionalAssignmentsForHIT(self, params):
        hit = self.hits[params["HITId"]]
        if params["UniqueRequestToken"] in self.tokens:
            return {"__type": "ServiceFault", "Message": "The request has already been processed.",
                    "TurkErrorCode": "AWS.MechanicalTurk.RequestAlreadyProcessed"}
        self.tokens.add(params["UniqueRequestToken"])
        hit["MaxAssignments"] += params["NumberOfAdditionalAssignments"]
        hit["NumberOfAssignmentsAvailable"] += params["NumberOfAdditionalAssignments"]
        hit["HITStatus"] = "Assignable"
        self.unseen.append((hit, list(self.hits).index(hit["HITId"]) + 1))
        return {}

    def GetHIT(self, params):
        return {"HIT": self.hits[params["HITId"]]}

    def ListHITs(self, params):
        return {"NumResults": len(self.hits), "HITs": list(self.hits.values())}

    def ListAssignmentsForHIT(self, params):
        found = [a for a in self.assignments.values() if a["HITId"] == params["HITId"]
                 and a["AssignmentStatus"] in params.get("AssignmentStatuses", [a["AssignmentStatus"]])]
        return {"NumResults": len(found), "Assignments": found}

    def GetAssignment(self, params):
        assignment = self.assignments[params["AssignmentId"]]
        return {"Assignment": assignment, "HIT": self.hits[assignment["HITId"]]}

    def _review(self, params, status):
        assignment = self.assignments[params["AssignmentId"]]
        assert assignment["AssignmentStatus"] == "Submitted", f"{params['AssignmentId']} reviewed twice"
        assignment["AssignmentStatus"] = status
        return {}

    def ApproveAssignment(self, params):
        return self._review(params, "Approved")

    def RejectAssignment(self, params):
        return self._review(params, "Rejected")

    def UpdateExpirationForHIT(self, params):
        hit = self.hits[params["HITId"]]
        hit["Expiration"] = float(params["ExpireAt"])
        open_ = hit["Expiration"] > time.time() and hit["NumberOfAssignmentsAvailable"]
        hit["HITStatus"] = "Assignable" if open_ else "Reviewable"
        return {}

    def CreateWorkerBlock(self, params):
        self.blocks[params["WorkerId"]] = params["Reason"]
        return {}

    def DeleteHIT(self, params):
        self.hits[params["HITId"]]["HITStatus"] = "Disposed"
        return {}
