package dev.knotless.atproto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class XrpcExceptionTest {

  @Test
  void theReferencePdsAnswersAreToldApartByKind() {
    assertEquals(XrpcException.Kind.SERVER_ERROR, ex(500, "InternalServerError").kind());
    assertEquals(XrpcException.Kind.TOO_LARGE, ex(413, "PayloadTooLarge").kind());
    assertEquals(XrpcException.Kind.INVALID_SWAP, ex(400, "InvalidSwap").kind());
    assertEquals(XrpcException.Kind.RECORD_NOT_FOUND, ex(400, "RecordNotFound").kind());
    assertEquals(XrpcException.Kind.RATE_LIMITED, ex(429, "RateLimitExceeded").kind());
    assertEquals(XrpcException.Kind.AUTH, ex(401, "AuthMissing").kind());
    assertEquals(XrpcException.Kind.TOO_LARGE, ex(400, "BlobTooLarge").kind());
    assertEquals(
        XrpcException.Kind.NO_STATUS,
        XrpcException.noStatus("m", new IOException("refused")).kind());
  }

  @Test
  void anAccountTheServerDoesNotHostIsToldFromARecordItLacks() {
    assertTrue(msg("InvalidRequest", "Could not find repo: did:plc:abc").accountNotHere());
    assertTrue(msg("InvalidRequest", "Could not locate record").accountNotHere());
    assertTrue(msg("RepoDeactivated", "Repo has been deactivated").accountNotHere());
    assertTrue(msg("RepoNotFound", "no such repo").accountNotHere());
    assertFalse(
        msg("RecordNotFound", "Could not locate record: at://did:plc:abc/x.y.z/k")
            .accountNotHere());
    assertFalse(msg("InvalidRequest", "Invalid record key").accountNotHere());
    assertFalse(XrpcException.noStatus("m", new IOException("refused")).accountNotHere());
  }

  private static XrpcException msg(String error, String message) {
    return new XrpcException("com.atproto.repo.listRecords", 400, error, message, null);
  }

  @Test
  void retryableMeansServerErrorRateLimitOrNoStatus() {
    assertTrue(ex(500, null).retryable());
    assertTrue(ex(429, null).retryable());
    assertTrue(XrpcException.noStatus("m", new IOException("x")).retryable());
    assertFalse(ex(400, "InvalidSwap").retryable());
  }

  @Test
  void theMessageNamesTheMethodStatusAndError() {
    assertEquals(
        "com.atproto.repo.getRecord: 400 RecordNotFound: Could not locate record",
        new XrpcException(
                "com.atproto.repo.getRecord",
                400,
                "RecordNotFound",
                "Could not locate record",
                null)
            .getMessage());
  }

  private static XrpcException ex(int status, String error) {
    return new XrpcException("m", status, error, "msg", null);
  }
}
