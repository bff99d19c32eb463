// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.28;

/// @title Erc1271Wallet: the smallest contract wallet for tests of ERC-1271 and ERC-6492 signatures.
/// @notice A signature is valid when its owner's key signed the hash itself (65 bytes r, s, v; low s).
/// SimpleAccount v0.8 has no `isValidSignature`, so the SIWE tests bring their own wallet.
contract Erc1271Wallet {
    bytes4 internal constant MAGIC_VALUE = 0x1626ba7e;
    bytes4 internal constant INVALID = 0xffffffff;
    uint256 internal constant HALF_ORDER = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    /// @notice The key whose signatures the wallet accepts.
    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    /// @notice ERC-1271: MAGIC_VALUE when `signature` is the owner's over `hash`, else 0xffffffff.
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) return INVALID;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (uint256(s) > HALF_ORDER) return INVALID;
        address signer = ecrecover(hash, v, r, s);
        return signer != address(0) && signer == owner ? MAGIC_VALUE : INVALID;
    }
}

/// @title Erc1271WalletFactory: deploys an Erc1271Wallet per (owner, salt) with CREATE2, so its address is
/// known before it exists (what ERC-6492 verifies counterfactually).
contract Erc1271WalletFactory {
    /// @notice The wallet of `owner` and `salt`, deployed if it is not yet.
    function deploy(address owner, bytes32 salt) external returns (address wallet) {
        wallet = walletAddress(owner, salt);
        if (wallet.code.length == 0) new Erc1271Wallet{salt: salt}(owner);
    }

    /// @notice Where the wallet of `owner` and `salt` is (or will be).
    function walletAddress(address owner, bytes32 salt) public view returns (address) {
        bytes32 initCodeHash = keccak256(abi.encodePacked(type(Erc1271Wallet).creationCode, abi.encode(owner)));
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, initCodeHash)))));
    }
}
