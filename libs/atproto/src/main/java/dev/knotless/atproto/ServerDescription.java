package dev.knotless.atproto;

/**
 * What {@code com.atproto.server.describeServer} says.
 *
 * @param did the server's DID
 * @param blobUploadLimit the advertised blob limit in bytes, or 0 when the server does not say
 */
public record ServerDescription(String did, long blobUploadLimit) {}
