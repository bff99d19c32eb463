// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import "@account-abstraction/contracts/accounts/SimpleAccount.sol";
import "@openzeppelin/contracts/interfaces/IERC1271.sol";
import "@openzeppelin/contracts/proxy/ERC1967/ERC1967Proxy.sol";
import "@openzeppelin/contracts/utils/Create2.sol";

/// @title LatchkeySimpleAccount: eth-infinitism's SimpleAccount (EntryPoint v0.8) with ERC-1271.
/// @notice A signature is valid for `hash` when the owner signed the replay-safe hash: the EIP-712 typed
/// data `LatchkeySimpleAccountMessage(bytes32 hash)` under this account's own domain (name
/// "LatchkeySimpleAccount", version "1", the chain id, this account's address). The domain binds it to
/// one account on one chain, so the owner's signature for one of its accounts is not valid for another
/// (the same construction as Coinbase Smart Wallet's ERC1271).
contract LatchkeySimpleAccount is SimpleAccount, IERC1271 {
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant MESSAGE_TYPEHASH = keccak256("LatchkeySimpleAccountMessage(bytes32 hash)");
    bytes32 private constant NAME_HASH = keccak256("LatchkeySimpleAccount");
    bytes32 private constant VERSION_HASH = keccak256("1");

    constructor(IEntryPoint anEntryPoint) SimpleAccount(anEntryPoint) {}

    /// @notice What the owner signs for `hash` (EIP-712, this account's domain).
    function replaySafeHash(bytes32 hash) public view returns (bytes32) {
        bytes32 domainSeparator =
            keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, address(this)));
        bytes32 structHash = keccak256(abi.encode(MESSAGE_TYPEHASH, hash));
        return keccak256(abi.encodePacked("\x19\x01", domainSeparator, structHash));
    }

    /// @inheritdoc IERC1271
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        (address recovered, ECDSA.RecoverError error,) = ECDSA.tryRecover(replaySafeHash(hash), signature);
        if (error == ECDSA.RecoverError.NoError && recovered != address(0) && recovered == owner) {
            return IERC1271.isValidSignature.selector;
        }
        return 0xffffffff;
    }
}

/// @title LatchkeySimpleAccountFactory: SimpleAccountFactory (v0.8) for LatchkeySimpleAccount.
/// @notice Same interface: `createAccount(owner, salt)` and `getAddress(owner, salt)`, the counterfactual
/// address of an ERC1967 proxy to the implementation. Unlike SimpleAccountFactory v0.8, anyone may call
/// `createAccount` (not only the EntryPoint's SenderCreator): an ERC-6492 verifier deploys an undeployed
/// account this way to check its signature. Nothing is gained by deploying someone else's account: the
/// owner is part of its address.
contract LatchkeySimpleAccountFactory {
    LatchkeySimpleAccount public immutable accountImplementation;

    constructor(IEntryPoint anEntryPoint) {
        accountImplementation = new LatchkeySimpleAccount(anEntryPoint);
    }

    /// @notice Creates the account (or answers it when it exists).
    function createAccount(address owner, uint256 salt) public returns (LatchkeySimpleAccount ret) {
        address addr = getAddress(owner, salt);
        if (addr.code.length > 0) {
            return LatchkeySimpleAccount(payable(addr));
        }
        ret = LatchkeySimpleAccount(
            payable(
                new ERC1967Proxy{salt: bytes32(salt)}(
                    address(accountImplementation), abi.encodeCall(SimpleAccount.initialize, (owner))
                )
            )
        );
    }

    /// @notice The address `createAccount(owner, salt)` makes.
    function getAddress(address owner, uint256 salt) public view returns (address) {
        return Create2.computeAddress(
            bytes32(salt),
            keccak256(
                abi.encodePacked(
                    type(ERC1967Proxy).creationCode,
                    abi.encode(address(accountImplementation), abi.encodeCall(SimpleAccount.initialize, (owner)))
                )
            )
        );
    }
}
