; chronoplan export of the world domain blocksworld
(define (domain blocksworld)
  (:requirements :strips :typing :negative-preconditions :equality)
  (:types block - object)
  (:predicates
    (on ?x0 - block ?x1 - block)
    (ontable ?x0 - block)
    (clear ?x0 - block)
    (holding ?x0 - block)
    (handempty)
  )

  (:action pick-up
   :parameters (?x - block)
   :precondition (and (clear ?x) (ontable ?x) (handempty))
   :effect (and (holding ?x) (not (ontable ?x)) (not (clear ?x)) (not (handempty))))

  (:action put-down
   :parameters (?x - block)
   :precondition (holding ?x)
   :effect (and (ontable ?x) (clear ?x) (handempty) (not (holding ?x))))

  (:action stack
   :parameters (?x - block ?y - block)
   :precondition (and (holding ?x) (clear ?y) (not (= ?x ?y)))
   :effect (and (on ?x ?y) (clear ?x) (handempty) (not (holding ?x)) (not (clear ?y))))

  (:action unstack
   :parameters (?x - block ?y - block)
   :precondition (and (on ?x ?y) (clear ?x) (handempty))
   :effect (and (holding ?x) (clear ?y) (not (on ?x ?y)) (not (clear ?x)) (not (handempty))))
)
