// Shared with the signing policies (keyManagement/policies): the decoder lives in userOperations/.
export { type DecodedCall, decodeCalls, simpleAccountCallsAbi } from "../../../userOperations/decodeCalls";
